package dev.virtuoso.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

/**
 * {@link DutyClaim}: one holder at a time, not reentrant, what a holder wrote the next one sees, and
 * work deferred to a holder is taken by it after its release.
 */
class DutyClaimTest {
    @Test
    void oneHolderAtATimeAndANestedClaimFails() throws Exception {
        DutyClaim claim = new DutyClaim();
        assertFalse(claim.heldByCurrentThread());
        assertTrue(claim.claim());
        assertTrue(claim.heldByCurrentThread());
        assertFalse(claim.claim(), "not reentrant");
        boolean[] other = new boolean[2];
        Thread t = new Thread(() -> {
            other[0] = claim.claim();
            other[1] = claim.heldByCurrentThread();
        }, "duty-claim-test-other");
        t.start();
        t.join(10_000);
        assertFalse(other[0] || other[1], "another thread took a held claim");
        claim.release();
        assertFalse(claim.heldByCurrentThread());
        assertTrue(claim.claim(), "free again after the release");
    }

    @Test
    void threadsTakingTurnsNeverOverlapAndSeeEachOthersWrites() throws Exception {
        DutyClaim claim = new DutyClaim();
        long[] plain = new long[1]; // written only under the claim, without any other ordering
        AtomicLong overlaps = new AtomicLong();
        int[] inside = new int[1];
        Thread[] threads = new Thread[4];
        for (int i = 0; i < threads.length; i++) {
            threads[i] = new Thread(() -> {
                int done = 0;
                while (done < 20_000) {
                    if (claim.claim()) {
                        if (++inside[0] != 1) {
                            overlaps.incrementAndGet();
                        }
                        plain[0]++;
                        inside[0]--;
                        claim.release();
                        done++;
                    }
                }
            }, "duty-claim-test-" + i);
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join(60_000);
            assertFalse(t.isAlive(), t.getName() + " still running");
        }
        assertEquals(0, overlaps.get());
        assertEquals(4L * 20_000, plain[0], "an increment made under the claim was lost");
    }

    @Test
    void workDeferredToTheHolderIsTakenAfterItsRelease() throws Exception {
        DutyClaim claim = new DutyClaim();
        assertFalse(claim.claimDeferred(), "nothing deferred");
        assertTrue(claim.claim());
        boolean[] other = new boolean[1];
        Thread t = new Thread(() -> other[0] = claim.defer(), "duty-claim-test-defer");
        t.start();
        t.join(10_000);
        assertFalse(other[0], "the claim is held: the deferring thread does not get it");
        claim.release();
        assertTrue(claim.claimDeferred(), "the holder takes the claim back for the deferred work");
        assertTrue(claim.heldByCurrentThread());
        claim.release();
        assertFalse(claim.claimDeferred(), "taken once");
        assertTrue(claim.defer(), "a free claim: the deferring thread takes it itself");
        claim.release();
        assertFalse(claim.claimDeferred(), "and with it the deferred work");
    }
}
