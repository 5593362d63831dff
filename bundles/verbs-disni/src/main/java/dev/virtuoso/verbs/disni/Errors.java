package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.util.Locale;

import dev.virtuoso.spi.verbs.VerbsException;

/**
 * Turns DiSNI's {@link IOException}s into {@link VerbsException}s. libdisni reports failures as
 * {@code "j2c::<call>: <verb> failed: <strerror(errno)>"}; the errno is recovered from the text.
 */
final class Errors {
    private Errors() {
    }

    static VerbsException verbs(String what, IOException e) {
        return new VerbsException(errnoOf(e.getMessage()), what + ": " + e.getMessage(), e);
    }

    static int errnoOf(String message) {
        if (message == null) {
            return VerbsException.EIO;
        }
        String m = message.toLowerCase(Locale.ROOT);
        if (m.contains("cannot allocate memory")) {
            return VerbsException.ENOMEM;
        }
        if (m.contains("invalid argument")) {
            return VerbsException.EINVAL;
        }
        if (m.contains("no such device")) {
            return VerbsException.ENODEV;
        }
        if (m.contains("device or resource busy") || m.contains("address already in use")) {
            return VerbsException.EBUSY;
        }
        if (m.contains("operation not permitted")) {
            return VerbsException.EPERM;
        }
        if (m.contains("timed out")) {
            return VerbsException.ETIMEDOUT;
        }
        if (m.contains("closed")) {
            return VerbsException.EINVAL;
        }
        return VerbsException.EIO;
    }
}
