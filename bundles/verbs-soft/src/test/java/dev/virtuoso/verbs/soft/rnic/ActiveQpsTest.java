package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;

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
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * The engine visits the QPs with work, not every QP of the device: after a burst of WRITEs on many
 * connected QPs every QP leaves the active set and an idle device visits none; a WR on one QP makes
 * that QP active until it is done. A doorbell queue too small for the posting QPs falls back to
 * visiting every QP, and no WR is lost.
 */
class ActiveQpsTest {
    private static final int PAIRS = 64;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    @Test
    void idleQpsAreNotVisitedAndAPostActivatesOnlyItsQp() throws Exception {
        try (Rig rig = new Rig(b -> b)) {
            for (int i = 0; i < PAIRS; i++) {
                rig.write(i);
            }
            for (int i = 0; i < PAIRS; i++) {
                rig.awaitCompletion(i);
            }
            awaitIdle(rig.x);
            awaitIdle(rig.y);
            long[] before = rig.visits();
            Thread.sleep(200);
            assertArrayEquals(before, rig.visits(), "an idle device visited QPs");

            rig.write(7);
            rig.awaitCompletion(7);
            awaitIdle(rig.x);
            awaitIdle(rig.y);
            long[] after = rig.visits();
            for (int i = 0; i < 2 * PAIRS; i++) {
                int pair = i % PAIRS;
                String qp = (i < PAIRS ? "sender" : "receiver") + " of pair " + pair;
                if (pair == 7) {
                    assertTrue(after[i] > before[i], qp + " was not visited");
                } else {
                    assertEquals(before[i], after[i], qp + " was visited for a WRITE on pair 7");
                }
            }
        }
    }

    @Test
    void aFullDoorbellQueueFallsBackToVisitingEveryQp() throws Exception {
        try (Rig rig = new Rig(b -> b.doorbellQueue(1).spinNanos(0))) {
            List<Thread> posters = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int first = t * (PAIRS / 8);
                Thread poster = new Thread(() -> {
                    try {
                        for (int round = 0; round < 50; round++) {
                            for (int i = first; i < first + PAIRS / 8; i++) {
                                rig.write(i);
                            }
                            for (int i = first; i < first + PAIRS / 8; i++) {
                                rig.awaitCompletion(i);
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }, "active-qps-poster-" + t);
                posters.add(poster);
                poster.start();
            }
            for (Thread poster : posters) {
                poster.join(TimeUnit.MINUTES.toMillis(2));
                assertTrue(!poster.isAlive(), poster.getName() + " still running");
            }
            assertEquals(List.of(), failures);
            awaitIdle(rig.x);
            awaitIdle(rig.y);
        }
    }

    private static void awaitIdle(SoftRnic r) throws Exception {
        long end = System.nanoTime() + WAIT_NANOS;
        int active;
        while ((active = r.call(Engine::activeCount)) != 0) {
            assertTrue(System.nanoTime() - end < 0, active + " QPs still active on an idle device");
            Thread.sleep(5);
        }
    }

    /** Devices x and y on a fabric, PAIRS connected QP pairs, one CQ per sending QP. */
    private static final class Rig implements AutoCloseable {
        final FabricNetwork net = new FabricNetwork("active-qps", 3);
        final SoftVerbsProvider provider;
        final IbvContext cx;
        final IbvContext cy;
        final SoftRnic x;
        final SoftRnic y;
        final IbvQp[] senders = new IbvQp[PAIRS];
        final IbvQp[] receivers = new IbvQp[PAIRS];
        final IbvCq[] cqs = new IbvCq[PAIRS];
        final IbvMr source;
        final IbvMr target;

        Rig(UnaryOperator<SoftRnicConfig.Builder> config) throws Exception {
            net.addHost("x", "10.9.2.1");
            net.addHost("y", "10.9.2.2");
            net.link("x", "y", LinkSpec.UNLIMITED);
            provider = new SoftVerbsProvider(config.apply(SoftRnicConfig.builder("x").fabric(net, "x")).build(),
                    config.apply(SoftRnicConfig.builder("y").fabric(net, "y")).build());
            cx = provider.openDevice("x");
            cy = provider.openDevice("y");
            x = ((SoftContext) cx).rnic;
            y = ((SoftContext) cy).rnic;
            IbvPd px = cx.allocPd();
            IbvPd py = cy.allocPd();
            source = px.regMr(ByteBuffer.allocateDirect(PAIRS * 256), IbvAccess.LOCAL_WRITE);
            target = py.regMr(ByteBuffer.allocateDirect(PAIRS * 256), IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE);
            IbvCq cyq = cy.createCq(PAIRS * 2, null);
            for (int i = 0; i < PAIRS; i++) {
                cqs[i] = cx.createCq(8, null);
                senders[i] = px.createQp(new IbvQpInitAttr().sendCq(cqs[i]).recvCq(cqs[i]));
                receivers[i] = py.createQp(new IbvQpInitAttr().sendCq(cyq).recvCq(cyq));
                connect(senders[i], cy, receivers[i]);
                connect(receivers[i], cx, senders[i]);
            }
        }

        /** @return the engine visits of every sender, then of every receiver */
        long[] visits() throws Exception {
            long[] out = new long[2 * PAIRS];
            x.call(e -> {
                for (int i = 0; i < PAIRS; i++) {
                    out[i] = ((SoftQp) senders[i]).visits;
                }
                return null;
            });
            y.call(e -> {
                for (int i = 0; i < PAIRS; i++) {
                    out[PAIRS + i] = ((SoftQp) receivers[i]).visits;
                }
                return null;
            });
            return out;
        }

        void write(int i) throws Exception {
            IbvSendWr wr = new IbvSendWr().wrId(i).opcode(IbvWrOpcode.RDMA_WRITE).sendFlags(IbvSendFlags.SIGNALED)
                    .numSge(1).remoteAddr(target.address() + i * 256L).rkey(target.rkey());
            wr.sge(0).set(source.address() + i * 256L, 256, source.lkey());
            senders[i].postSend(wr);
        }

        void awaitCompletion(int i) throws Exception {
            IbvWc[] wcs = {new IbvWc()};
            long end = System.nanoTime() + WAIT_NANOS;
            while (cqs[i].pollCq(wcs, 1) == 0) {
                assertTrue(System.nanoTime() - end < 0, "WRITE on QP pair " + i + " never completed");
                Thread.onSpinWait();
            }
            assertEquals(IbvWcStatus.SUCCESS, wcs[0].status(), "pair " + i);
            assertEquals(i, wcs[0].wrId());
        }

        private static void connect(IbvQp qp, IbvContext peer, IbvQp peerQp) throws Exception {
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).qpAccessFlags(IbvAccess.ALL), IbvQpAttr.MASK_INIT);
            IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).destQpNum(peerQp.qpNum()).rqPsn(0)
                    .maxDestRdAtomic(16).minRnrTimer(1);
            rtr.ahAttr().dgid(peer.vnics().get(0).address()).udpPort(peer.udpPort());
            qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7)
                    .maxRdAtomic(16), IbvQpAttr.MASK_RTS);
        }

        @Override
        public void close() throws Exception {
            cx.close();
            cy.close();
            provider.close();
            net.close();
        }
    }
}
