package dev.virtuoso.launcher;

/** The command line is wrong; the message says why, for the user. */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong */
    public UsageException(String message) {
        super(message);
    }
}
