package dev.virtuoso.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Once warm, moving data allocates nothing per packet: neither on the engine threads nor on the
 * thread that posts WRs and polls the CQ (measured with the JVM's per-thread allocation counter),
 * also when that thread runs the devices' duty cycles itself ({@code invokeOnPoll}).
 */
class SteadyStateAllocationTest {
    private static final int ROUND_BYTES = 4 << 20;

    /** @param invokeOnPoll whether the polling thread runs the devices' duty cycles ({@code self} below) */
    @ParameterizedTest(name = "devices run by their CQ pollers: {0}")
    @ValueSource(booleans = {false, true})
    void transfersAllocateNothingPerPacket(boolean invokeOnPoll) throws Exception {
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled(),
                "no per-thread allocation counter");
        try (FabricNetwork net = new FabricNetwork("alloc", 1)) {
            net.addHost("x", "10.9.0.1");
            net.addHost("y", "10.9.0.2");
            net.link("x", "y", LinkSpec.UNLIMITED);
            try (SoftVerbsProvider provider = new SoftVerbsProvider(
                    SoftRnicConfig.builder("x").fabric(net, "x").invokeOnPoll(invokeOnPoll).build(),
                    SoftRnicConfig.builder("y").fabric(net, "y").invokeOnPoll(invokeOnPoll).build())) {
                IbvContext x = provider.openDevice("x");
                IbvContext y = provider.openDevice("y");
                int access = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ;
                IbvPd px = x.allocPd();
                IbvPd py = y.allocPd();
                IbvCq cx = x.createCq(1024, null);
                IbvCq cy = y.createCq(1024, null);
                IbvQp qx = px.createQp(new IbvQpInitAttr().sendCq(cx).recvCq(cx));
                IbvQp qy = py.createQp(new IbvQpInitAttr().sendCq(cy).recvCq(cy));
                connect(qx, y, qy);
                connect(qy, x, qx);
                IbvMr mx1 = px.regMr(java.nio.ByteBuffer.allocateDirect(ROUND_BYTES), access);
                IbvMr my1 = py.regMr(java.nio.ByteBuffer.allocateDirect(ROUND_BYTES), access);
                Work w = new Work(qx, qy, cx, cy, mx1, my1);
                w.round(); // warm up: JIT, pools, first-use tables
                w.round();
                List<Thread> engines = engineThreads("virtuoso-soft-x", "virtuoso-soft-y");
                assertEquals(2, engines.size());
                long[] before = new long[engines.size()];
                for (int i = 0; i < before.length; i++) {
                    before[i] = mx.getThreadAllocatedBytes(engines.get(i).getId());
                }
                long selfBefore = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
                int packets = 0;
                for (int r = 0; r < 3; r++) {
                    packets += w.round();
                }
                long self = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - selfBefore;
                long engine = 0;
                for (int i = 0; i < before.length; i++) {
                    engine += mx.getThreadAllocatedBytes(engines.get(i).getId()) - before[i];
                }
                // a few hundred bytes of slack for JIT deoptimisation or lazily built tables
                assertTrue(engine < 16 * 1024, "engines allocated " + engine + " bytes for "
                        + packets + " packets");
                assertTrue(self < 16 * 1024, "poster/poller allocated " + self + " bytes for "
                        + packets + " packets");
                x.close();
                y.close();
            }
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

    private static List<Thread> engineThreads(String... names) {
        List<Thread> out = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            for (String n : names) {
                if (t.getName().equals(n)) {
                    out.add(t);
                }
            }
        }
        return out;
    }

    /** One round: 4 MiB WRITE, 4 MiB READ, 64 SENDs of 64 KiB, all reusing the same WR objects. */
    private static final class Work {
        final IbvQp qx;
        final IbvQp qy;
        final IbvCq cx;
        final IbvCq cy;
        final IbvMr mx;
        final IbvMr my;
        final IbvSendWr send = new IbvSendWr();
        final IbvRecvWr recv = new IbvRecvWr();
        final IbvWc[] wcs = new IbvWc[16];

        Work(IbvQp qx, IbvQp qy, IbvCq cx, IbvCq cy, IbvMr mx, IbvMr my) {
            this.qx = qx;
            this.qy = qy;
            this.cx = cx;
            this.cy = cy;
            this.mx = mx;
            this.my = my;
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new IbvWc();
            }
        }

        int round() throws Exception {
            one(IbvWrOpcode.RDMA_WRITE, ROUND_BYTES);
            one(IbvWrOpcode.RDMA_READ, ROUND_BYTES);
            int chunk = 64 << 10;
            for (int i = 0; i < 64; i++) {
                recv.wrId(i).numSge(1).sge(0).set(my.address() + (long) i * chunk, chunk, my.lkey());
                qy.postRecv(recv);
            }
            for (int i = 0; i < 64; i++) {
                send.wrId(i).opcode(IbvWrOpcode.SEND).sendFlags(i == 63 ? IbvSendFlags.SIGNALED : 0)
                        .numSge(1).sge(0).set(mx.address() + (long) i * chunk, chunk, mx.lkey());
                qx.postSend(send);
            }
            poll(cx, 1);
            poll(cy, 64);
            return (2 * ROUND_BYTES + (64 << 16)) / 4096;
        }

        private void one(IbvWrOpcode op, int len) throws Exception {
            send.wrId(1).opcode(op).sendFlags(IbvSendFlags.SIGNALED).numSge(1)
                    .remoteAddr(my.address()).rkey(my.rkey())
                    .sge(0).set(mx.address(), len, mx.lkey());
            qx.postSend(send);
            poll(cx, 1);
        }

        private void poll(IbvCq cq, int n) throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            int got = 0;
            while (got < n) {
                int k = cq.pollCq(wcs, Math.min(wcs.length, n - got));
                for (int i = 0; i < k; i++) {
                    if (wcs[i].status() != IbvWcStatus.SUCCESS) {
                        throw new AssertionError("completion failed: " + wcs[i].status());
                    }
                }
                got += k;
                if (k == 0 && System.nanoTime() > deadline) {
                    throw new AssertionError("timed out");
                }
            }
        }
    }
}
