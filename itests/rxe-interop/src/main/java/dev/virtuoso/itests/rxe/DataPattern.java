package dev.virtuoso.itests.rxe;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** Deterministic test data and the SHA-256 digests both sides print to compare what moved. */
public final class DataPattern {
    private DataPattern() {
    }

    /**
     * Fills {@code [offset, offset + length)}: byte i is {@code (i * 31 + seed) mod 251} (251 is
     * prime, so the data does not repeat with any power-of-two period).
     *
     * @param buf buffer (absolute indexing; position untouched)
     * @param offset first byte
     * @param length bytes to fill
     * @param seed varies the data per case and path
     */
    public static void fill(ByteBuffer buf, int offset, int length, int seed) {
        for (int i = 0; i < length; i++) {
            buf.put(offset + i, (byte) ((i * 31L + seed) % 251));
        }
    }

    /**
     * @param buf buffer (absolute indexing; position untouched)
     * @param offset first byte
     * @param length bytes
     * @return lower-case hex SHA-256 of the range
     */
    public static String sha256(ByteBuffer buf, int offset, int length) {
        MessageDigest md = digest();
        ByteBuffer view = buf.duplicate();
        view.limit(offset + length).position(offset);
        md.update(view);
        return HexFormat.of().formatHex(md.digest());
    }

    private static MessageDigest digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is mandatory in every JDK", e);
        }
    }
}
