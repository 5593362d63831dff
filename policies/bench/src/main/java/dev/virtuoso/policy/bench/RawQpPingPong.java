package dev.virtuoso.policy.bench;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * The baseline: SEND/RECV ping-pong on one RC QP per side, raw verbs on the soft RNIC the
 * multipath connections use (devices a and b of {@link LatencyRig}, first vNIC each, or one device
 * per process in {@link LatencyPeer}), each side spinning on its CQ.
 */
final class RawQpPingPong {
    private static final int ACCESS = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE;
    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private RawQpPingPong() {
    }

    /** One side: PD, CQ, QP, a buffer (send half, receive half). */
    static final class End implements AutoCloseable {
        final IbvContext ctx;
        final IbvPd pd;
        final IbvCq cq;
        final IbvQp qp;
        final IbvMr mr;
        /** Send half, then receive half. */
        final ByteBuffer buf;
        final int size;
        final IbvSendWr send = new IbvSendWr();
        final IbvRecvWr recv = new IbvRecvWr();
        final IbvWc[] wcs = {new IbvWc(), new IbvWc(), new IbvWc(), new IbvWc()};
        int recvs;
        int sends;
        volatile Exception failure;

        End(VerbsProvider provider, String device, int size) throws Exception {
            this.size = size;
            ctx = provider.openDevice(device);
            pd = ctx.allocPd();
            cq = ctx.createCq(256, null);
            qp = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq).maxSendWr(16).maxRecvWr(16).maxSendSge(1)
                    .maxRecvSge(1));
            buf = ByteBuffer.allocateDirect(2 * size);
            mr = pd.regMr(buf, ACCESS);
            send.opcode(IbvWrOpcode.SEND).sendFlags(IbvSendFlags.SIGNALED).numSge(1);
            send.sge(0).set(mr.address(), size, mr.lkey());
            recv.numSge(1);
            recv.sge(0).set(mr.address() + size, size, mr.lkey());
        }

        void connect(InetAddress peer, int peerPort, int peerQpn) throws Exception {
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(ACCESS),
                    IbvQpAttr.MASK_INIT);
            IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(IbvMtu.MTU_4096).destQpNum(peerQpn)
                    .rqPsn(0).maxDestRdAtomic(16).minRnrTimer(1);
            rtr.ahAttr().dgid(peer).sgidIndex(0).udpPort(peerPort);
            qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
            qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(0).timeout(14).retryCnt(7).rnrRetry(7)
                    .maxRdAtomic(16), IbvQpAttr.MASK_RTS);
        }

        void postRecv() throws Exception {
            qp.postRecv(recv.wrId(1));
        }

        void postSend() throws Exception {
            qp.postSend(send.wrId(2));
        }

        /** Polls the CQ once, counting receives and send completions. @return completions taken */
        int poll() throws Exception {
            int n = cq.pollCq(wcs, wcs.length);
            for (int i = 0; i < n; i++) {
                if (wcs[i].status() != IbvWcStatus.SUCCESS) {
                    throw new IllegalStateException("completion failed: " + wcs[i]);
                }
                if (wcs[i].opcode() == IbvWcOpcode.RECV) {
                    recvs++;
                } else {
                    sends++;
                }
            }
            return n;
        }

        /** Spins until a receive (or a send completion, if {@code send}) is there. */
        void await(boolean send) throws Exception {
            long deadline = System.nanoTime() + TIMEOUT_NANOS;
            while ((send ? sends : recvs) == 0) {
                int n = poll();
                if (n == 0) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("no completion within 10 s");
                    }
                    Thread.yield();
                }
            }
            if (send) {
                sends--;
            } else {
                recvs--;
            }
        }

        @Override
        public void close() throws Exception {
            qp.close();
            mr.close();
            cq.close();
            pd.close();
            ctx.close();
        }
    }

    /** @return half round trips in nanoseconds, after a tenth of the iterations as warm-up */
    static long[] run(LatencyRig rig, int size, int iterations) throws Exception {
        try (End a = new End(rig.provider, "a", size); End b = new End(rig.provider, "b", size)) {
            a.connect(rig.b.get(0), b.ctx.udpPort(), b.qp.qpNum());
            b.connect(rig.a.get(0), a.ctx.udpPort(), a.qp.qpNum());
            a.postRecv();
            b.postRecv();
            Thread echo = new Thread(() -> {
                try {
                    echo(b, MpPingPong.total(iterations));
                } catch (Exception e) {
                    b.failure = e;
                }
            }, "latency-bench-qp-echo");
            echo.setDaemon(true);
            echo.start();
            long[] samples = measure(a, iterations);
            echo.join(10_000);
            if (b.failure != null) {
                throw new IllegalStateException("echo side failed", b.failure);
            }
            return samples;
        }
    }

    /** The client's loop, its receive posted: send, wait for the answer, repost. */
    static long[] measure(End a, int iterations) throws Exception {
        int warm = iterations / 10;
        int total = warm + iterations;
        long[] samples = new long[iterations];
        for (int i = 0; i < total; i++) {
            long t0 = System.nanoTime();
            a.postSend();
            a.await(false);
            long t = System.nanoTime() - t0;
            a.postRecv();
            a.await(true);
            if (i >= warm) {
                samples[i - warm] = t / 2;
            }
        }
        return samples;
    }

    /** The echo side's loop, its receive posted: answers {@code total} arrivals. */
    static void echo(End b, int total) throws Exception {
        for (int i = 0; i < total; i++) {
            b.await(false);
            b.postRecv();
            b.postSend();
            b.await(true);
        }
    }
}
