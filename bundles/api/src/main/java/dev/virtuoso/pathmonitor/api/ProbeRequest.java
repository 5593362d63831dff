package dev.virtuoso.pathmonitor.api;

/**
 * One probe WRITE the monitor asks the core to post: {@link #bytes()} bytes from the local scratch
 * region to the peer's scratch region (offset 0; the content is irrelevant) on path
 * {@link #path()}. Mutable and reused by the core: no allocation per probe.
 */
public final class ProbeRequest {
    private int path = -1;
    private long bytes;

    /** @return path slot to probe */
    public int path() {
        return path;
    }

    /** @return bytes of this probe WRITE, at most the scratch length given to the factory */
    public long bytes() {
        return bytes;
    }

    /**
     * Fills the request (called by the monitor).
     *
     * @param path path slot
     * @param bytes probe WRITE length, positive
     * @return this
     */
    public ProbeRequest set(int path, long bytes) {
        this.path = path;
        this.bytes = bytes;
        return this;
    }

    /** Resets to "no request". */
    public void clear() {
        path = -1;
        bytes = 0;
    }
}
