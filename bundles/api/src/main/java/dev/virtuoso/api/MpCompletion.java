package dev.virtuoso.api;

/**
 * The completion of one MP work request. Mutable and reusable: the application allocates a few and
 * passes them to {@link MultipathConnection#pollCompletions}; the connection overwrites them. Not
 * thread-safe.
 */
public final class MpCompletion {
    private long wrId;
    private MpOpcode opcode = MpOpcode.WRITE;
    private MpStatus status = MpStatus.SUCCESS;
    private long byteLength;
    private int paths;
    private String detail;

    /** @return the application's identifier given at post time */
    public long wrId() {
        return wrId;
    }

    public MpOpcode opcode() {
        return opcode;
    }

    public MpStatus status() {
        return status;
    }

    /** @return true if {@link #status()} is {@link MpStatus#SUCCESS} */
    public boolean ok() {
        return status == MpStatus.SUCCESS;
    }

    /** @return bytes transferred; for RECV the length of the message received */
    public long byteLength() {
        return byteLength;
    }

    /** @return how many distinct paths carried the request's chunks */
    public int paths() {
        return paths;
    }

    /** @return human-readable detail for failures, {@code null} on success */
    public String detail() {
        return detail;
    }

    /**
     * Fills every field; used by the connection.
     *
     * @return this
     */
    public MpCompletion set(long wrId, MpOpcode opcode, MpStatus status, long byteLength, int paths,
            String detail) {
        this.wrId = wrId;
        this.opcode = opcode;
        this.status = status;
        this.byteLength = byteLength;
        this.paths = paths;
        this.detail = detail;
        return this;
    }

    /**
     * Copies another completion.
     *
     * @param o source
     * @return this
     */
    public MpCompletion copyFrom(MpCompletion o) {
        return set(o.wrId, o.opcode, o.status, o.byteLength, o.paths, o.detail);
    }

    @Override
    public String toString() {
        return "MpCompletion[wrId=" + wrId + ", " + opcode + ", " + status + ", bytes=" + byteLength
                + ", paths=" + paths + (detail != null ? ", " + detail : "") + "]";
    }
}
