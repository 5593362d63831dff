package dev.virtuoso.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

/** {@link InvokerLease}: the agent's thread stands back only for a running lease and frequent polls. */
class InvokerLeaseTest {
    private static final long TERM = 1_000_000_000L; // long enough that the test's own clock reads stay inside it

    @Test
    void standsBackForTheRestOfARunningLeaseOnceThePollsCameOftenEnough() {
        InvokerLease lease = new InvokerLease(TERM, 20);
        long t0 = System.nanoTime();
        lease.renew(t0);
        assertEquals(0, lease.standBackNanos(t0, 0), "no term has passed to measure the polls over");
        // one term later: 25 polls in it, and a poll renewed the lease just now
        long t1 = t0 + TERM;
        lease.renew(t1);
        long left = lease.standBackNanos(t1, 25);
        assertTrue(left > TERM / 2 && left <= TERM, "the rest of the renewed lease: " + left);
        // within the next term the measurement stands; halfway through, half the lease is left
        assertEquals(left - TERM / 2, lease.standBackNanos(t1 + TERM / 2, 25));
    }

    @Test
    void doesNotStandBackForPollsThatComeSeldom() {
        InvokerLease lease = new InvokerLease(TERM, 20);
        long t0 = System.nanoTime();
        lease.renew(t0);
        lease.standBackNanos(t0, 0);
        long t1 = t0 + 2 * TERM;
        lease.renew(t1);
        assertEquals(0, lease.standBackNanos(t1, 39), "39 polls over two terms: fewer than 20 per term");
        long t2 = t1 + TERM;
        lease.renew(t2);
        assertTrue(lease.standBackNanos(t2, 39 + 20) > 0, "20 polls in the next term");
    }

    @Test
    void aRevokedLeaseEndsTheStandBackAndRevokingTwiceReportsNothing() {
        InvokerLease lease = new InvokerLease(TERM, 1);
        long t1 = System.nanoTime() + TERM; // a term after the lease was made: the polls are measured
        lease.renew(t1);
        assertTrue(lease.standBackNanos(t1, 5) > 0);
        assertTrue(lease.revoke(), "the lease ran");
        assertFalse(lease.revoke(), "already ended");
        assertEquals(0, lease.standBackNanos(System.nanoTime(), 6));
    }

    @Test
    void handingBackUnparksTheAgentsThreadOnlyWhileTheLeaseRuns() throws Exception {
        InvokerLease lease = new InvokerLease(TERM, 1);
        Thread agent = new Thread(() -> LockSupport.parkNanos(TERM * 30),
                "invoker-lease-test-agent");
        agent.start();
        lease.handBack(agent); // no lease running: the agent's thread stays parked
        agent.join(200);
        assertTrue(agent.isAlive(), "unparked without a running lease");
        lease.renew(System.nanoTime());
        lease.handBack(agent);
        agent.join(10_000);
        assertFalse(agent.isAlive(), "not unparked by the hand-back");
        lease.handBack(null); // an agent thread not started yet: nothing to unpark
    }

    @Test
    void aRenewalWithinTheFirstHalfOfATermWritesNothing() {
        InvokerLease lease = new InvokerLease(TERM, 1);
        long t1 = System.nanoTime() + TERM;
        lease.renew(t1);
        assertEquals(TERM, lease.standBackNanos(t1, 2));
        lease.renew(t1 + TERM / 4); // three quarters of the term left: not renewed
        assertEquals(TERM, lease.standBackNanos(t1, 2));
        lease.renew(t1 + 3 * TERM / 4); // a quarter left: renewed to a full term from then
        assertEquals(TERM + 3 * TERM / 4, lease.standBackNanos(t1, 2));
    }

    @Test
    void refusesANonPositiveTermOrPollCount() {
        assertThrows(IllegalArgumentException.class, () -> new InvokerLease(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new InvokerLease(1, 0));
    }
}
