package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import dev.virtuoso.spi.verbs.VerbsException;

/** TESTS ONLY: DiSNI's verbs objects, each holding the SPI object it stands for. */
final class EmuObjects {
    private EmuObjects() {
    }

    /** libibverbs' strerror texts, which libdisni puts in its exception messages. */
    static String strerror(int errno) {
        return switch (errno) {
            case VerbsException.EPERM -> "Operation not permitted";
            case VerbsException.EIO -> "Input/output error";
            case VerbsException.EAGAIN -> "Resource temporarily unavailable";
            case VerbsException.ENOMEM -> "Cannot allocate memory";
            case VerbsException.EFAULT -> "Bad address";
            case VerbsException.EBUSY -> "Device or resource busy";
            case VerbsException.ENODEV -> "No such device";
            case VerbsException.EINVAL -> "Invalid argument";
            case VerbsException.EOPNOTSUPP -> "Operation not supported";
            case VerbsException.ETIMEDOUT -> "Connection timed out";
            default -> "Unknown error " + errno;
        };
    }

    static IOException libdisni(String call, String verb, VerbsException e) {
        return new IOException("j2c::" + call + ": " + verb + " failed: " + strerror(e.errno()) + "\n", e);
    }
}
