package dev.virtuoso.qpmanager.internal.bootstrap;

/** The peer sent something the protocol does not allow. */
public final class ProtocolException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean versionMismatch;

    /** @param message what was wrong */
    public ProtocolException(String message) {
        this(message, false);
    }

    /**
     * @param message what was wrong
     * @param versionMismatch whether the peer speaks another protocol version
     */
    public ProtocolException(String message, boolean versionMismatch) {
        super(message);
        this.versionMismatch = versionMismatch;
    }

    /** @return true if the peer speaks another protocol version */
    public boolean versionMismatch() {
        return versionMismatch;
    }
}
