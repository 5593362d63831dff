package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;

/**
 * Every resource limit and argument check of the device, PD and context (each at its edge), and
 * what closing a PD or a context takes with it.
 */
class ResourceLimitsTest {
    private FabricNetwork network;
    private SoftVerbsProvider provider;
    private IbvContext ctx;

    @AfterEach
    void tearDown() {
        if (ctx != null) {
            ctx.close();
        }
        provider.close();
        network.close();
    }

    private void open(UnaryOperator<SoftRnicConfig.Builder> config) throws Exception {
        network = new FabricNetwork("limits", 1);
        network.addHost("a", "10.0.0.1");
        provider = new SoftVerbsProvider(
                config.apply(SoftRnicConfig.builder("a").fabric(network, "a")).build());
        ctx = provider.openDevice("a");
    }

    private static void einval(Executable call, String why) {
        VerbsException e = assertThrows(VerbsException.class, call, why);
        assertEquals(VerbsException.EINVAL, e.errno(), why);
    }

    private static IbvQpInitAttr qpAttr(IbvCq cq) {
        return new IbvQpInitAttr().sendCq(cq).recvCq(cq).maxSendWr(1).maxRecvWr(1).maxSendSge(0)
                .maxRecvSge(0).maxInlineData(0);
    }

    @Test
    void queueAndCqLimitsHoldAtTheirEdges() throws Exception {
        open(b -> b.maxQueueWr(16).maxCqe(32));
        IbvDeviceAttr d = ctx.queryDevice();
        assertEquals(16, d.maxQpWr());
        assertEquals(SoftPd.MAX_SGE, d.maxSge());
        assertEquals(32, d.maxCqe());
        einval(() -> ctx.createCq(0, null), "cqe 0");
        einval(() -> ctx.createCq(33, null), "cqe beyond max_cqe");
        IbvCq cq = ctx.createCq(32, null);
        assertEquals(32, cq.capacity());
        assertEquals(2, ctx.createCq(1, null).capacity(), "at least 2");
        IbvPd pd = ctx.allocPd();
        IbvQp edge = pd.createQp(qpAttr(cq).maxSendWr(16).maxRecvWr(16)
                .maxSendSge(SoftPd.MAX_SGE).maxRecvSge(SoftPd.MAX_SGE)
                .maxInlineData(SoftPd.MAX_INLINE));
        assertNotNull(edge);
        pd.createQp(qpAttr(cq)); // every minimum
        einval(() -> pd.createQp(qpAttr(cq).maxSendWr(0)), "max_send_wr 0");
        einval(() -> pd.createQp(qpAttr(cq).maxSendWr(17)), "max_send_wr");
        einval(() -> pd.createQp(qpAttr(cq).maxRecvWr(0)), "max_recv_wr 0");
        einval(() -> pd.createQp(qpAttr(cq).maxRecvWr(17)), "max_recv_wr");
        einval(() -> pd.createQp(qpAttr(cq).maxSendSge(-1)), "max_send_sge -1");
        einval(() -> pd.createQp(qpAttr(cq).maxSendSge(SoftPd.MAX_SGE + 1)), "max_send_sge");
        einval(() -> pd.createQp(qpAttr(cq).maxRecvSge(-1)), "max_recv_sge -1");
        einval(() -> pd.createQp(qpAttr(cq).maxRecvSge(SoftPd.MAX_SGE + 1)), "max_recv_sge");
        einval(() -> pd.createQp(qpAttr(cq).maxInlineData(-1)), "max_inline_data -1");
        einval(() -> pd.createQp(qpAttr(cq).maxInlineData(SoftPd.MAX_INLINE + 1)), "inline");
        einval(() -> pd.createQp(qpAttr(cq).sendCq(null)), "no send CQ");
        einval(() -> pd.createQp(qpAttr(cq).recvCq(null)), "no receive CQ");
        IbvCq closed = ctx.createCq(4, null);
        closed.close();
        einval(() -> pd.createQp(qpAttr(cq).sendCq(closed)), "destroyed send CQ");
        einval(() -> pd.createQp(qpAttr(cq).recvCq(closed)), "destroyed receive CQ");
        closed.close(); // idempotent
        einval(() -> closed.pollCq(new dev.virtuoso.spi.verbs.IbvWc[1], 1), "poll destroyed");
    }

    @Test
    void sharedReceiveQueuesFollowTheConfiguration() throws Exception {
        open(b -> b.maxQueueWr(16).sharedReceiveQueues(false));
        IbvDeviceAttr d = ctx.queryDevice();
        assertEquals(0, d.maxSrq());
        assertEquals(0, d.maxSrqWr());
        assertEquals(0, d.maxSrqSge());
        IbvPd pd = ctx.allocPd();
        VerbsException e = assertThrows(VerbsException.class, () -> pd.createSrq(4, 1));
        assertEquals(VerbsException.EOPNOTSUPP, e.errno());
    }

    @Test
    void srqLimitsHoldAndQpsOnAnSrqTakeNoReceives() throws Exception {
        open(b -> b.maxQueueWr(16).sharedReceiveQueues(true));
        IbvDeviceAttr d = ctx.queryDevice();
        assertEquals(Integer.MAX_VALUE, d.maxSrq());
        assertEquals(16, d.maxSrqWr());
        assertEquals(SoftPd.MAX_SGE, d.maxSrqSge());
        IbvPd pd = ctx.allocPd();
        einval(() -> pd.createSrq(0, 1), "SRQ max_wr 0");
        einval(() -> pd.createSrq(17, 1), "SRQ max_wr");
        einval(() -> pd.createSrq(4, 0), "SRQ max_sge 0");
        einval(() -> pd.createSrq(4, SoftPd.MAX_SGE + 1), "SRQ max_sge");
        IbvSrq srq = pd.createSrq(16, SoftPd.MAX_SGE);
        IbvCq cq = ctx.createCq(8, null);
        // the receive limits do not apply to a QP on an SRQ
        IbvQp qp = pd.createQp(qpAttr(cq).srq(srq).maxRecvWr(0).maxRecvSge(-1));
        einval(() -> qp.postRecv(new dev.virtuoso.spi.verbs.IbvRecvWr(1)), "receive on SRQ QP");
    }

    @Test
    void registrationChecksBufferAndAccess() throws Exception {
        open(b -> b);
        IbvPd pd = ctx.allocPd();
        einval(() -> pd.regMr(null, IbvAccess.LOCAL_WRITE), "null buffer");
        einval(() -> pd.regMr(ByteBuffer.allocate(8), IbvAccess.LOCAL_WRITE), "heap buffer");
        einval(() -> pd.regMr(ByteBuffer.allocateDirect(8).position(8), 0), "empty range");
        einval(() -> pd.regMr(ByteBuffer.allocateDirect(8), IbvAccess.ALL + 1), "unknown flag");
        einval(() -> pd.regMr(ByteBuffer.allocateDirect(8), IbvAccess.REMOTE_WRITE),
                "remote write without local write");
        einval(() -> pd.regMr(ByteBuffer.allocateDirect(8), IbvAccess.REMOTE_ATOMIC),
                "remote atomic without local write");
        einval(() -> pd.regMr(ByteBuffer.allocateDirect(8).asReadOnlyBuffer(),
                IbvAccess.LOCAL_WRITE), "read-only buffer with write access");
        IbvMr ro = pd.regMr(ByteBuffer.allocateDirect(8).asReadOnlyBuffer(), IbvAccess.REMOTE_READ);
        assertEquals(8, ro.length());
        ByteBuffer b = ByteBuffer.allocateDirect(64);
        b.position(16).limit(48);
        IbvMr mr = pd.regMr(b, IbvAccess.ALL);
        assertEquals(32, mr.length(), "the buffer's remaining range");
        assertEquals(IbvAccess.ALL, mr.access());
        mr.buffer().put(0, (byte) 5);
        assertEquals(5, b.get(16), "the registered range starts at the position");
        assertEquals(0, mr.address() & 4095);
        assertTrue(mr.toString().contains("len=32"), mr.toString());
    }

    @Test
    void closingAPdDestroysWhatItOwns() throws Exception {
        open(b -> b.sharedReceiveQueues(true));
        IbvPd pd = ctx.allocPd();
        IbvCq cq = ctx.createCq(8, null);
        IbvMr mr = pd.regMr(ByteBuffer.allocateDirect(64), IbvAccess.LOCAL_WRITE);
        IbvQp qp = pd.createQp(qpAttr(cq));
        IbvSrq srq = pd.createSrq(4, 1);
        SoftRnic rnic = ((SoftPd) pd).rnic;
        assertNotNull(rnic.mrs.byLkey(mr.lkey()));
        pd.close();
        assertNull(rnic.mrs.byLkey(mr.lkey()), "the region is deregistered");
        assertTrue(((SoftQp) qp).isDestroyed());
        einval(() -> pd.regMr(ByteBuffer.allocateDirect(8), 0), "PD closed");
        einval(() -> pd.createQp(qpAttr(cq)), "PD closed");
        einval(() -> pd.createSrq(4, 1), "PD closed");
        einval(() -> srq.postSrqRecv(new IbvRecvWr()), "its SRQ is destroyed with it");
        pd.close(); // idempotent
    }

    @Test
    void closingTheContextClosesEverythingAndRefusesMore() throws Exception {
        open(b -> b);
        IbvCompChannel ch = ctx.createCompChannel();
        IbvCq cq = ctx.createCq(8, ch);
        IbvPd pd = ctx.allocPd();
        IbvContext other = provider.openDevice("a");
        IbvCompChannel foreign = other.createCompChannel();
        einval(() -> ctx.createCq(8, foreign), "channel of another context");
        IbvCq foreignCq = other.createCq(8, null);
        other.allocPd(); // a second context of the same device shares its CQs' device
        IbvQp shared = pd.createQp(qpAttr(foreignCq));
        assertNotNull(shared);
        other.close();
        ctx.close();
        assertTrue(((SoftCq) cq).isClosed());
        einval(() -> ctx.allocPd(), "context closed");
        einval(() -> ctx.createCq(1, null), "context closed");
        einval(() -> ctx.createCompChannel(), "context closed");
        einval(() -> ctx.queryDevice(), "context closed");
        einval(() -> pd.regMr(ByteBuffer.allocateDirect(8), 0), "its PDs are closed with it");
        einval(() -> cq.reqNotifyCq(false), "CQ destroyed");
        einval(() -> ch.getCqEvent(0, java.util.concurrent.TimeUnit.MILLISECONDS),
                "channel closed");
        assertFalse(ctx.deviceName().isEmpty());
        ctx.close(); // idempotent
        ctx = null;
    }

    @Test
    void closingAChannelWakesItsWaiterWithAnErrorAndNoCqCanUseItAfterwards() throws Exception {
        open(b -> b);
        IbvCompChannel ch = ctx.createCompChannel();
        java.util.concurrent.CompletableFuture<Object> waiter = new java.util.concurrent.CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                waiter.complete(ch.getCqEvent(60, java.util.concurrent.TimeUnit.SECONDS));
            } catch (Exception e) {
                waiter.complete(e);
            }
        }, "channel-close-waiter");
        t.start();
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (t.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(Thread.State.TIMED_WAITING, t.getState(), "the waiter waits on the channel");
        ch.close();
        // the wait is a minute long: 20 s only catches a waiter that close did not wake (or that
        // cannot get the channel's lock back)
        Object result = waiter.get(20, java.util.concurrent.TimeUnit.SECONDS);
        assertTrue(result instanceof VerbsException, "woken with an error, not an event: " + result);
        assertEquals(VerbsException.EINVAL, ((VerbsException) result).errno());
        t.join(20_000);
        einval(() -> ctx.createCq(8, ch), "a destroyed channel is no longer the context's");
    }
}
