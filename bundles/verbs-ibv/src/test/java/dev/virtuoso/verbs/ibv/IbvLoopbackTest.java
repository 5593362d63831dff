package dev.virtuoso.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCompChannel;
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
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.Vnic;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two RC QPs on the first device with an IPv4 RoCE v2 GID, connected to each other: SEND with
 * immediate, RDMA WRITE and RDMA READ through the real libibverbs, every byte compared, completions
 * awaited through the completion channel. Needs a device (hardware, or rxe as in the qemu guest of
 * itests/rxe-interop); skipped with a message elsewhere.
 */
class IbvLoopbackTest {
    private static final int SIZE = 64 * 1024;
    private static final long WAIT_SECONDS = 60;

    @Test
    void sendWithImmediateWriteAndReadBetweenTwoQpsAreByteExact() throws Exception {
        assumeTrue(IbvAvailabilityTest.libibverbsInstalled(), "skipped: libibverbs.so.1 not installed");
        assumeTrue(IbvAvailabilityTest.rdmaDevicePresent(), "skipped: no RDMA device on this host");
        IbvVerbsProvider provider = new IbvVerbsProvider("libibverbs.so.1");
        RdmaDevice device = provider.devices().stream().filter(d -> !d.vnics().isEmpty()).findFirst().orElse(null);
        assumeTrue(device != null, "skipped: no device with an IPv4 RoCE v2 GID (give its netdev an IPv4 address)");
        Vnic vnic = device.vnics().get(0);
        try (IbvContext ctx = provider.openDevice(device.name())) {
            assertTrue(ctx.queryDevice().maxQpWr() > 0);
            IbvPd pd = ctx.allocPd();
            IbvCompChannel channel = ctx.createCompChannel();
            IbvCq cq = ctx.createCq(64, channel);
            assertTrue(cq.capacity() >= 64);
            IbvQp a = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq).maxSendWr(16).maxRecvWr(16));
            IbvQp b = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq).maxSendWr(16).maxRecvWr(16));
            connect(a, b.qpNum(), vnic);
            connect(b, a.qpNum(), vnic);
            assertEquals(IbvQpState.RTS, a.state());

            ByteBuffer src = ByteBuffer.allocateDirect(SIZE);
            for (int i = 0; i < SIZE; i++) {
                src.put(i, (byte) (i * 31 + 7));
            }
            ByteBuffer dst = ByteBuffer.allocateDirect(SIZE);
            IbvMr srcMr = pd.regMr(src, IbvAccess.ALL);
            IbvMr dstMr = pd.regMr(dst, IbvAccess.ALL);

            IbvRecvWr recv = new IbvRecvWr().wrId(1).numSge(1);
            recv.sge(0).set(dstMr.address(), SIZE, dstMr.lkey());
            b.postRecv(recv);
            IbvSendWr send = new IbvSendWr().wrId(2).opcode(IbvWrOpcode.SEND_WITH_IMM)
                    .sendFlags(IbvSendFlags.SIGNALED).immData(0xA1B2C3D4).numSge(1);
            send.sge(0).set(srcMr.address(), SIZE, srcMr.lkey());
            a.postSend(send);
            IbvWc[] wcs = await(cq, channel, 2);
            IbvWc rc = find(wcs, 1);
            assertEquals(IbvWcOpcode.RECV, rc.opcode());
            assertTrue(rc.hasImm());
            assertEquals(0xA1B2C3D4, rc.immData());
            assertEquals(SIZE, rc.byteLen());
            assertEquals(src, dst);

            dst.clear();
            for (int i = 0; i < SIZE; i++) {
                dst.put(i, (byte) 0);
            }
            IbvSendWr write = new IbvSendWr().wrId(3).opcode(IbvWrOpcode.RDMA_WRITE).sendFlags(IbvSendFlags.SIGNALED)
                    .remoteAddr(dstMr.address()).rkey(dstMr.rkey()).numSge(1);
            write.sge(0).set(srcMr.address(), SIZE, srcMr.lkey());
            a.postSend(write);
            assertEquals(IbvWcOpcode.RDMA_WRITE, find(await(cq, channel, 1), 3).opcode());
            assertEquals(src, dst);

            for (int i = 0; i < SIZE; i++) {
                src.put(i, (byte) 0);
                dst.put(i, (byte) (i * 7 + 1));
            }
            IbvSendWr read = new IbvSendWr().wrId(4).opcode(IbvWrOpcode.RDMA_READ).sendFlags(IbvSendFlags.SIGNALED)
                    .remoteAddr(dstMr.address()).rkey(dstMr.rkey()).numSge(1);
            read.sge(0).set(srcMr.address(), SIZE, srcMr.lkey());
            b.postSend(read);
            IbvWc readWc = find(await(cq, channel, 1), 4);
            assertEquals(IbvWcOpcode.RDMA_READ, readWc.opcode());
            assertEquals(dst, src);
        }
    }

    private static void connect(IbvQp qp, int peerQpn, Vnic vnic) throws Exception {
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1).qpAccessFlags(IbvAccess.ALL),
                IbvQpAttr.MASK_INIT);
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(IbvMtu.MTU_1024).destQpNum(peerQpn)
                .rqPsn(100).maxDestRdAtomic(1).minRnrTimer(12).portNum(1);
        rtr.ahAttr().dgid(vnic.address()).sgidIndex(vnic.gidIndex());
        qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(100).timeout(18).retryCnt(7).rnrRetry(7)
                .maxRdAtomic(1), IbvQpAttr.MASK_RTS);
    }

    /** Waits for {@code n} successful completions, sleeping on the channel between polls. */
    private static IbvWc[] await(IbvCq cq, IbvCompChannel channel, int n) throws Exception {
        IbvWc[] got = new IbvWc[n];
        IbvWc[] batch = {new IbvWc(), new IbvWc(), new IbvWc(), new IbvWc()};
        int have = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (have < n) {
            cq.reqNotifyCq(false);
            int k = cq.pollCq(batch, batch.length);
            for (int i = 0; i < k; i++) {
                assertEquals(IbvWcStatus.SUCCESS, batch[i].status(), batch[i].toString());
                got[have++] = new IbvWc().copyFrom(batch[i]);
            }
            if (k == 0) {
                assertTrue(System.nanoTime() < deadline, "no completion within " + WAIT_SECONDS + " s");
                IbvCq fired = channel.getCqEvent(1, TimeUnit.SECONDS);
                if (fired != null) {
                    assertSame(cq, fired);
                    cq.ackCqEvents(1);
                }
            }
        }
        return got;
    }

    private static IbvWc find(IbvWc[] wcs, long wrId) {
        for (IbvWc w : wcs) {
            if (w.wrId() == wrId) {
                return w;
            }
        }
        assertFalse(true, "no completion for wr " + wrId);
        return null;
    }
}
