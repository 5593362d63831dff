package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;

/**
 * A device run by its CQ pollers ({@code invokeOnPoll}): a WR posted while another thread runs a
 * cycle of the device, past its taking of the doorbells, leaves when that cycle ends (the doorbell's
 * transmit is deferred to the claim's holder), not when the engine thread next runs, up to a lease
 * later.
 */
class DeferredDoorbellTest {
    private static final int ALL = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ;

    private ScriptedFabric fabric;

    @AfterEach
    void tearDown() {
        if (fabric != null) {
            fabric.close();
        }
    }

    @Test
    void aWrPostedDuringAnotherThreadsCycleLeavesWhenThatCycleEnds() throws Exception {
        fabric = new ScriptedFabric("deferred-doorbell", 11, 5, true);
        Rig rig = fabric.rig;
        ScriptedWire wireA = fabric.wireA();
        SoftRnic a = fabric.deviceA();
        QpPair first = rig.connect(new QpSettings());
        QpPair second = rig.connect(new QpSettings());
        Mem src = rig.mem(rig.pdA, 64, ALL);
        Mem dst = rig.mem(rig.pdB, 128, ALL);
        IbvWc[] wcs = {new IbvWc(), new IbvWc(), new IbvWc(), new IbvWc()};
        Thread self = Thread.currentThread();
        int posted = 0; // second WRs posted so far (attempts that did not count post one too)
        // the scenario needs the engine thread standing back when the second WR is posted (a
        // 2-core machine may hold this thread up past the lease): tried until it was
        for (int attempt = 0; attempt < 20; attempt++) {
            // every second WR of the attempts before has left: this attempt counts its own only
            awaitSent(second.a(), posted, rig, wcs);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!a.standingBack()) { // this thread polls A's CQ, running its cycles
                rig.cqA.pollCq(wcs, wcs.length);
                assertTrue(System.nanoTime() - deadline < 0, "the engine thread never stood back");
            }
            AtomicBoolean ran = new AtomicBoolean();
            boolean[] standingBack = new boolean[1];
            Thread[] poster = new Thread[1];
            Throwable[] failed = new Throwable[1];
            // the first WR's transmit runs in this thread under the device's claim; right after its
            // packet, past the doorbells, another thread posts on the second QP. If another thread
            // sent the packet (the engine thread resumed before the first post), nothing is posted
            wireA.afterSend(() -> {
                if (Thread.currentThread() != self) {
                    ran.set(true);
                    return;
                }
                poster[0] = new Thread(() -> {
                    try {
                        // the engine thread must stand back through the whole post: read before and
                        // after, and no new stand-back between (under load it can resume meanwhile,
                        // and then it takes the doorbell itself, rightly)
                        long backs = a.standBacks();
                        boolean before = a.standingBack();
                        second.a().postSend(Rig.wr(2, IbvWrOpcode.RDMA_WRITE, src, 0, 64, dst, 64));
                        standingBack[0] = before && a.standingBack() && a.standBacks() == backs;
                    } catch (Throwable t) {
                        failed[0] = t;
                    }
                }, "deferred-doorbell-poster");
                poster[0].start();
                // polling meanwhile keeps the pollers' lease (the polls are denied: this thread holds
                // the claim), so the engine thread stays standing back however slowly the poster starts
                IbvWc[] more = {new IbvWc(), new IbvWc(), new IbvWc(), new IbvWc()};
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (poster[0].isAlive() && System.nanoTime() - end < 0) {
                    try {
                        rig.cqA.pollCq(more, more.length);
                    } catch (VerbsException e) {
                        throw new AssertionError(e);
                    }
                }
                ran.set(true);
            });
            first.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 64, dst, 0));
            // the first WR leaves in the post, or (the engine thread resumed just then) in a later
            // cycle: one of this thread's polls, or the engine thread's. Its action must have run
            // before the next attempt queues one (one action per send, in order); the count is read
            // right after the call of this thread whose cycle ran it, which is when it must be in
            long sent = sent(second.a());
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!ran.get()) {
                rig.cqA.pollCq(wcs, wcs.length);
                sent = sent(second.a());
                assertTrue(System.nanoTime() - end < 0, "the first WR never left");
            }
            if (poster[0] == null) {
                continue;
            }
            poster[0].join(10_000);
            assertNull(failed[0]);
            posted++;
            if (!standingBack[0]) {
                continue; // the engine thread ran the cycles then: it takes the doorbell itself
            }
            assertEquals(posted, sent, "the second WR did not leave when the first one's cycle ended");
            return;
        }
        throw new AssertionError("the engine thread was never standing back at the second post");
    }

    /** Waits (polling A's CQ, so that cycles run) until {@code qp} sent {@code n} WRs' packets. */
    private static void awaitSent(IbvQp qp, long n, Rig rig, IbvWc[] wcs) throws VerbsException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sent(qp) < n) {
            rig.cqA.pollCq(wcs, wcs.length);
            assertTrue(System.nanoTime() - end < 0, "a second WR of an earlier attempt never left");
        }
    }

    /** @return packets sent for the first time (a retransmission of an earlier WR, under load, is not a new one) */
    private static long sent(IbvQp qp) {
        return qp.counters().get(VerbsCounter.TX_PACKETS) - qp.counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
    }
}
