package dev.virtuoso.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * A doorbell must never be lost: posting threads publish a WR and then look whether the engine is
 * parked; the engine marks itself parked and then looks for published WRs. If both looked before
 * the other's write was visible, the WR would wait for the engine's park timeout. Here the
 * engines never spin and park for up to 30 s, several threads post one WR at a time and wait for
 * its completion; every WR must complete in well under the park timeout.
 */
class DoorbellWakeupStressTest {
    private static final int THREADS = 4;
    private static final int POSTS_PER_THREAD = 5000;
    private static final long PARK_NANOS = 30_000_000_000L;
    // far below the park timeout, far above the scheduling delays of a loaded 2-core machine
    private static final long BOUND_NANOS = 5_000_000_000L;

    /**
     * @param invokeOnPoll whether the devices are run by their CQ pollers: then x's posters run its
     *     cycles and transmit at their doorbells while its engine thread stands back or waits in the
     *     wire holding the claim (y, polled by nobody, stays on its engine thread)
     */
    @ParameterizedTest(name = "devices run by their CQ pollers: {0}")
    @ValueSource(booleans = {false, true})
    void everyPostIsTakenUpWithoutWaitingForTheParkTimeout(boolean invokeOnPoll) throws Exception {
        try (FabricNetwork net = new FabricNetwork("doorbell", 3)) {
            net.addHost("x", "10.9.1.1");
            net.addHost("y", "10.9.1.2");
            net.link("x", "y", LinkSpec.UNLIMITED);
            try (SoftVerbsProvider provider = new SoftVerbsProvider(
                    SoftRnicConfig.builder("x").fabric(net, "x").spinNanos(0).maxParkNanos(PARK_NANOS)
                            .invokeOnPoll(invokeOnPoll).build(),
                    SoftRnicConfig.builder("y").fabric(net, "y").spinNanos(0).maxParkNanos(PARK_NANOS)
                            .invokeOnPoll(invokeOnPoll).build())) {
                IbvContext x = provider.openDevice("x");
                IbvContext y = provider.openDevice("y");
                IbvPd px = x.allocPd();
                IbvPd py = y.allocPd();
                IbvMr target = py.regMr(ByteBuffer.allocateDirect(THREADS * 64), IbvAccess.LOCAL_WRITE
                        | IbvAccess.REMOTE_WRITE);
                IbvMr source = px.regMr(ByteBuffer.allocateDirect(THREADS * 64), IbvAccess.LOCAL_WRITE);
                List<Thread> posters = new ArrayList<>();
                AtomicLong worst = new AtomicLong();
                AtomicLong done = new AtomicLong();
                AtomicReference<Throwable> failure = new AtomicReference<>();
                CountDownLatch start = new CountDownLatch(1);
                for (int t = 0; t < THREADS; t++) {
                    IbvCq cx = x.createCq(64, null);
                    IbvCq cy = y.createCq(64, null);
                    IbvQp qx = px.createQp(new IbvQpInitAttr().sendCq(cx).recvCq(cx));
                    IbvQp qy = py.createQp(new IbvQpInitAttr().sendCq(cy).recvCq(cy));
                    connect(qx, y, qy);
                    connect(qy, x, qx);
                    int slot = t;
                    Thread poster = new Thread(() -> {
                        try {
                            start.await();
                            post(qx, cx, source, target, slot, worst, done);
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }, "doorbell-poster-" + t);
                    posters.add(poster);
                    poster.start();
                }
                start.countDown();
                for (Thread poster : posters) {
                    poster.join(TimeUnit.MINUTES.toMillis(5));
                    assertTrue(!poster.isAlive(), poster.getName() + " still running");
                }
                if (failure.get() != null) {
                    throw new AssertionError("a poster failed: " + failure.get(), failure.get());
                }
                assertEquals((long) THREADS * POSTS_PER_THREAD, done.get());
                assertTrue(worst.get() < BOUND_NANOS, "slowest WR took " + worst.get() / 1_000_000
                        + " ms: a doorbell was lost and the engine slept until its park timeout");
                x.close();
                y.close();
            }
        }
    }

    private static void post(IbvQp qp, IbvCq cq, IbvMr source, IbvMr target, int slot, AtomicLong worst,
            AtomicLong done) throws Exception {
        IbvSendWr wr = new IbvSendWr();
        IbvWc[] wcs = {new IbvWc()};
        for (int i = 0; i < POSTS_PER_THREAD; i++) {
            wr.wrId(i).opcode(IbvWrOpcode.RDMA_WRITE).sendFlags(IbvSendFlags.SIGNALED).numSge(1)
                    .remoteAddr(target.address() + slot * 64L).rkey(target.rkey())
                    .sge(0).set(source.address() + slot * 64L, 64, source.lkey());
            if ((i & 7) == 0) {
                // let both engines go idle and park before some of the posts
                Thread.sleep(0, 200_000);
            }
            long t0 = System.nanoTime();
            qp.postSend(wr);
            long deadline = t0 + PARK_NANOS + BOUND_NANOS;
            int n;
            while ((n = cq.pollCq(wcs, 1)) == 0) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("WR " + i + " never completed");
                }
                Thread.onSpinWait();
            }
            long took = System.nanoTime() - t0;
            if (wcs[0].status() != IbvWcStatus.SUCCESS || wcs[0].wrId() != i) {
                throw new AssertionError("WR " + i + " completed with " + wcs[0].status() + " as " + wcs[0].wrId());
            }
            worst.accumulateAndGet(took, Math::max);
            done.incrementAndGet();
        }
    }

    private static void connect(IbvQp qp, IbvContext peer, IbvQp peerQp) throws Exception {
        IbvQpAttr a = new IbvQpAttr().qpState(IbvQpState.INIT).qpAccessFlags(IbvAccess.ALL);
        qp.modifyQp(a, IbvQpAttr.MASK_INIT);
        a = new IbvQpAttr().qpState(IbvQpState.RTR).destQpNum(peerQp.qpNum()).rqPsn(0)
                .maxDestRdAtomic(16).minRnrTimer(1);
        a.ahAttr().dgid(peer.vnics().get(0).address()).udpPort(peer.udpPort());
        qp.modifyQp(a, IbvQpAttr.MASK_RTR);
        a = new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7)
                .maxRdAtomic(16);
        qp.modifyQp(a, IbvQpAttr.MASK_RTS);
    }
}
