package dev.virtuoso.api;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Arrays;
import java.util.Set;

/**
 * Reads a bootstrap shared secret ({@link ConnectOptions.Builder#sharedSecret}) from a file, the way
 * the command line, the shell and the connector's configuration take it: the file's bytes without
 * one trailing line end. Like ssh with its keys, a file that others may read is refused.
 */
public final class SecretFile {
    /** Shortest secret accepted (128 bits). */
    public static final int MIN_BYTES = 16;
    /** Longest secret accepted. */
    public static final int MAX_BYTES = 4096;

    private SecretFile() {
    }

    /**
     * @param file the secret file
     * @return its secret
     * @throws IOException if it cannot be read, is readable by group or others (on POSIX file
     *     systems), or holds fewer than {@value #MIN_BYTES} or more than {@value #MAX_BYTES} bytes
     */
    public static byte[] read(Path file) throws IOException {
        if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
            Set<PosixFilePermission> p = Files.getPosixFilePermissions(file);
            if (p.contains(PosixFilePermission.GROUP_READ) || p.contains(PosixFilePermission.OTHERS_READ)) {
                throw new IOException("secret file " + file + " is readable by group or others (chmod 600 it)");
            }
        }
        if (Files.size(file) > MAX_BYTES + 2) {
            throw new IOException("secret file " + file + " is longer than " + MAX_BYTES + " bytes");
        }
        byte[] b = Files.readAllBytes(file);
        int n = b.length;
        if (n > 0 && b[n - 1] == '\n') {
            n--;
            if (n > 0 && b[n - 1] == '\r') {
                n--;
            }
        }
        if (n < MIN_BYTES || n > MAX_BYTES) {
            throw new IOException("secret file " + file + " holds " + n + " bytes; a secret has " + MIN_BYTES + " to "
                    + MAX_BYTES);
        }
        return Arrays.copyOf(b, n);
    }
}
