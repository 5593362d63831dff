package dev.virtuoso.qpmanager.internal.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import org.junit.jupiter.api.Test;

/** The proofs are HMAC-SHA256 over a role label and both nonces, in a fixed order per role. */
class AuthenticatorTest {
    private static final byte[] SECRET = "s3cret".getBytes(StandardCharsets.US_ASCII);

    private static byte[] hmac(String label, byte[] first, byte[] second) throws Exception {
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(new SecretKeySpec(SECRET, "HmacSHA256"));
        m.update(label.getBytes(StandardCharsets.US_ASCII));
        m.update(first);
        m.update(second);
        return m.doFinal();
    }

    private static byte[] filled(int value) {
        byte[] b = new byte[Protocol.NONCE_BYTES];
        Arrays.fill(b, (byte) value);
        return b;
    }

    @Test
    void proofsAreTheDocumentedHmacs() throws Exception {
        byte[] client = filled(1);
        byte[] server = filled(2);
        assertArrayEquals(hmac("virtuoso-server-proof", client, server),
                Authenticator.serverProof(SECRET, client, server));
        assertArrayEquals(hmac("virtuoso-client-proof", server, client),
                Authenticator.clientProof(SECRET, client, server));
        assertEquals(Protocol.MAC_BYTES, Authenticator.serverProof(SECRET, client, server).length);
    }

    @Test
    void oneSidesProofIsNeverTheOthers() {
        byte[] same = filled(5);
        assertFalse(Authenticator.matches(Authenticator.serverProof(SECRET, same, same),
                Authenticator.clientProof(SECRET, same, same)), "the role label separates the proofs");
    }

    @Test
    void matchesComparesWholeProofsAndRefusesNone() {
        byte[] proof = Authenticator.serverProof(SECRET, filled(1), filled(2));
        assertTrue(Authenticator.matches(proof, proof.clone()));
        byte[] other = proof.clone();
        other[31] ^= 1;
        assertFalse(Authenticator.matches(proof, other));
        assertFalse(Authenticator.matches(proof, null), "a missing proof never matches");
    }

    @Test
    void noncesAreFreshAndPsnsFitIn24Bits() {
        byte[] a = Authenticator.nonce();
        byte[] b = Authenticator.nonce();
        assertEquals(Protocol.NONCE_BYTES, a.length);
        assertFalse(Arrays.equals(a, b), "two nonces differ (a collision has probability 2^-256)");
        assertFalse(Arrays.equals(new byte[Protocol.NONCE_BYTES], a), "not all zero");
        boolean nonZero = false;
        for (int i = 0; i < 64; i++) {
            int psn = Authenticator.initialPsn();
            assertTrue(psn >= 0 && psn < (1 << 24), Integer.toString(psn));
            nonZero |= psn != 0;
        }
        assertTrue(nonZero, "64 draws are not all 0 (probability 2^-1536)");
    }
}
