package dev.virtuoso.spi.verbs;

import java.io.IOException;

/**
 * A verb call failed. {@link #errno()} carries the libibverbs-style error code (positive errno), so
 * callers can react without parsing messages.
 */
public class VerbsException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Operation not permitted (e.g. access flags not allowed). */
    public static final int EPERM = 1;
    /** I/O error in the device or wire. */
    public static final int EIO = 5;
    /** Resource temporarily unavailable. */
    public static final int EAGAIN = 11;
    /** Out of memory or a queue is full (as {@code ibv_post_send} returns). */
    public static final int ENOMEM = 12;
    /** Bad address: SGE outside its memory region. */
    public static final int EFAULT = 14;
    /** Resource busy (e.g. deallocating a PD that still has QPs). */
    public static final int EBUSY = 16;
    /** No such device. */
    public static final int ENODEV = 19;
    /** Invalid argument or attribute, or an illegal state transition. */
    public static final int EINVAL = 22;
    /** Operation not supported by this binding. */
    public static final int EOPNOTSUPP = 95;
    /** Timed out. */
    public static final int ETIMEDOUT = 110;

    private final int errno;

    public VerbsException(int errno, String message) {
        super(message + " (errno " + errno + ")");
        this.errno = errno;
    }

    public VerbsException(int errno, String message, Throwable cause) {
        super(message + " (errno " + errno + ")", cause);
        this.errno = errno;
    }

    /** @return the positive errno-style code */
    public int errno() {
        return errno;
    }
}
