package dev.virtuoso.qpmanager.internal.bootstrap;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 challenge and response over the two nonces, one proof per direction; the role label
 * keeps a proof of one side from being reflected as the other's.
 */
public final class Authenticator {
    private static final byte[] SERVER = "virtuoso-server-proof".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CLIENT = "virtuoso-client-proof".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private Authenticator() {
    }

    /** @return a fresh random nonce */
    public static byte[] nonce() {
        byte[] n = new byte[Protocol.NONCE_BYTES];
        RANDOM.nextBytes(n);
        return n;
    }

    /** @return a random 24-bit packet sequence number */
    public static int initialPsn() {
        return RANDOM.nextInt(1 << 24);
    }

    /** @return the server's proof of the secret for these nonces */
    public static byte[] serverProof(byte[] secret, byte[] clientNonce, byte[] serverNonce) {
        return mac(secret, SERVER, clientNonce, serverNonce);
    }

    /** @return the client's proof of the secret for these nonces */
    public static byte[] clientProof(byte[] secret, byte[] clientNonce, byte[] serverNonce) {
        return mac(secret, CLIENT, serverNonce, clientNonce);
    }

    /** @return true if the proofs are equal, compared in constant time */
    public static boolean matches(byte[] expected, byte[] actual) {
        return actual != null && MessageDigest.isEqual(expected, actual);
    }

    private static byte[] mac(byte[] secret, byte[] label, byte[] first, byte[] second) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            m.update(label);
            m.update(first);
            m.update(second);
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }
}
