package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * A device configured with {@link SoftRnicConfig.Builder#invokeOnPoll}: threads that poll its CQs
 * run its duty cycles and its engine thread stands back while they do; the engine thread takes the
 * cycles back when they stop polling, and a device closed under a busy poller stops.
 */
class InvokeOnPollTest {
    private static final int ALL = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ;
    private static final int EXCHANGES = 2000;
    private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);

    private FabricNetwork net;
    private SoftVerbsProvider provider;
    private Rig rig;
    private SoftRnic a;
    private SoftRnic b;

    @BeforeEach
    void setUp() throws Exception {
        net = new FabricNetwork("invoke-on-poll", 5);
        net.addHost("a", "10.9.7.1");
        net.addHost("b", "10.9.7.2");
        FabricLink link = net.link("a", "b", LinkSpec.UNLIMITED);
        provider = new SoftVerbsProvider(SoftRnicConfig.builder("a").fabric(net, "a").invokeOnPoll(true).build(),
                SoftRnicConfig.builder("b").fabric(net, "b").invokeOnPoll(true).build());
        rig = new Rig(new TwoHostEnvironment("invoke-on-poll", provider, link), 11);
        a = ((SoftContext) rig.a).rnic;
        b = ((SoftContext) rig.b).rnic;
    }

    @AfterEach
    void tearDown() {
        if (rig != null) {
            rig.close();
        }
        provider.close();
        net.close();
    }

    @Test
    void pollersRunTheDutyCyclesAndTheEngineThreadsStandBack() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        Mem pingSrc = rig.mem(rig.pdA, 64, ALL);
        Mem pingDst = rig.mem(rig.pdB, 64, ALL);
        Mem pongSrc = rig.mem(rig.pdB, 64, ALL);
        Mem pongDst = rig.mem(rig.pdA, 64, ALL);
        AtomicReference<Throwable> echoFailure = new AtomicReference<>();
        Thread echo = new Thread(() -> {
            try {
                for (int i = 0; i < EXCHANGES; i++) {
                    p.b().postRecv(Rig.recv(i, pingDst, 0, 64));
                    IbvWc got = spinFor(rig.cqB, IbvWcOpcode.RECV);
                    assertEquals(IbvWcStatus.SUCCESS, got.status(), got.toString());
                    pongSrc.buf().putInt(0, pingDst.buf().getInt(0));
                    p.b().postSend(Rig.wr(i, IbvWrOpcode.SEND, pongSrc, 0, 4, null, 0));
                    spinFor(rig.cqB, IbvWcOpcode.SEND);
                }
            } catch (Throwable e) {
                echoFailure.set(e);
            }
        }, "invoke-on-poll-echo");
        echo.start();
        for (int i = 0; i < EXCHANGES && echoFailure.get() == null; i++) {
            p.a().postRecv(Rig.recv(i, pongDst, 0, 64));
            pingSrc.buf().putInt(0, i);
            p.a().postSend(Rig.wr(i, IbvWrOpcode.SEND, pingSrc, 0, 4, null, 0));
            // the answer may arrive before the acknowledgement that completes the SEND
            IbvWc first = spinFor(rig.cqA, null);
            IbvWc second = spinFor(rig.cqA, first.opcode() == IbvWcOpcode.SEND ? IbvWcOpcode.RECV : IbvWcOpcode.SEND);
            assertEquals(IbvWcStatus.SUCCESS, first.status(), first.toString());
            assertEquals(IbvWcStatus.SUCCESS, second.status(), second.toString());
            assertEquals(i, pongDst.buf().getInt(0), "exchange " + i + " echoed the wrong message");
        }
        echo.join(TimeUnit.SECONDS.toMillis(20));
        assertEquals(null, echoFailure.get());
        assertFalse(echo.isAlive(), "the echo thread did not finish");
        for (SoftRnic r : List.of(a, b)) {
            assertTrue(r.invokes() > EXCHANGES, r.name() + ": pollers ran " + r.invokes() + " duty cycles");
            assertTrue(r.standBacks() > 0, r.name() + ": the engine thread never stood back");
        }
    }

    @Test
    void pollersOfSeveralCqsOfOneDeviceTakeTurnsAndEveryByteArrives() throws Exception {
        // four QP pairs, each end on a CQ of its own: eight threads poll the two devices' CQs at
        // once, each running their device's cycles, while the engine threads stand back
        int pairs = 4;
        int writes = 400;
        int len = 3000;
        List<Thread> threads = new java.util.ArrayList<>();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int k = 0; k < pairs; k++) {
            QpSettings settings = new QpSettings();
            IbvCq cqa = rig.own(rig.a.createCq(1024, null));
            IbvCq cqb = rig.own(rig.b.createCq(1024, null));
            var qa = rig.createQp(rig.pdA, cqa, null, settings);
            var qb = rig.createQp(rig.pdB, cqb, null, settings);
            rig.toRts(qa, rig.b, qb.qpNum(), 100 * k, 200 * k, settings);
            rig.toRts(qb, rig.a, qa.qpNum(), 200 * k, 100 * k, settings);
            Mem src = rig.mem(rig.pdA, len, ALL);
            Mem dst = rig.mem(rig.pdB, len * writes, ALL);
            for (int i = 0; i < writes; i++) {
                qb.postRecv(Rig.recv(i, dst, i * len, len)); // all posted ahead: no RNR waits
            }
            int seed = k;
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < writes; i++) {
                        for (int j = 0; j < len; j++) {
                            src.buf().put(j, (byte) (j * 31 + i * 7 + seed));
                        }
                        qa.postSend(Rig.wr(i, IbvWrOpcode.SEND, src, 0, len, null, 0));
                        IbvWc sent = spinFor(cqa, IbvWcOpcode.SEND);
                        assertEquals(IbvWcStatus.SUCCESS, sent.status(), sent.toString());
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "invoke-on-poll-sender-" + k));
            threads.add(new Thread(() -> {
                try {
                    for (int i = 0; i < writes; i++) {
                        IbvWc got = spinFor(cqb, IbvWcOpcode.RECV);
                        assertEquals(IbvWcStatus.SUCCESS, got.status(), got.toString());
                        assertEquals(i, got.wrId(), "receives complete in order");
                        for (int j = 0; j < len; j++) {
                            if (dst.buf().get(i * len + j) != (byte) (j * 31 + i * 7 + seed)) {
                                throw new AssertionError("pair " + seed + ", message " + i + ": byte " + j + " differs");
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "invoke-on-poll-receiver-" + k));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertFalse(t.isAlive(), t.getName() + " still running");
        }
        assertEquals(null, failure.get());
        assertTrue(a.invokes() > 0 && b.invokes() > 0, "pollers ran no duty cycles");
    }

    @Test
    void theEngineThreadTakesTheCyclesBackWhenThePollersStop() throws Exception {
        QpPair p = rig.connect(new QpSettings());
        Mem src = rig.mem(rig.pdB, 64, ALL);
        Mem dst = rig.mem(rig.pdA, 64, ALL);
        // A's poller polls long enough for its engine thread to stand back, then stops polling
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        IbvWc[] wcs = {new IbvWc()};
        while (System.nanoTime() - until < 0) {
            assertEquals(0, rig.cqA.pollCq(wcs, 1));
        }
        assertTrue(a.invokes() > 0, "A's poller ran no duty cycle");
        p.a().postRecv(Rig.recv(1, dst, 0, 64));
        src.buf().putLong(0, 0x1234_5678_9abcL);
        p.b().postSend(Rig.wr(2, IbvWrOpcode.SEND, src, 0, 8, null, 0));
        long invokes = a.invokes();
        // B's SEND completes only once A's device took the packet and acknowledged it: with nobody
        // polling A's CQ that is A's engine thread
        IbvWc sent = spinFor(rig.cqB, IbvWcOpcode.SEND);
        assertEquals(IbvWcStatus.SUCCESS, sent.status(), sent.toString());
        assertEquals(invokes, a.invokes(), "something polled A's CQ");
        assertEquals(0x1234_5678_9abcL, dst.buf().getLong(0));
        IbvWc received = Rig.expect(rig.cqA, 1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, received.status(), received.toString());
    }

    @Test
    void aDeviceClosedUnderABusyPollerStops() throws Exception {
        IbvCq cq = rig.cqA;
        AtomicReference<Throwable> pollerFailure = new AtomicReference<>();
        Thread poller = new Thread(() -> {
            IbvWc[] wcs = {new IbvWc()};
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    cq.pollCq(wcs, 1);
                }
            } catch (VerbsException e) {
                // the CQ was destroyed: expected once the device closes
            } catch (Throwable e) {
                pollerFailure.set(e);
            }
        }, "invoke-on-poll-busy-poller");
        poller.start();
        long end = System.nanoTime() + WAIT_NANOS;
        while (a.standBacks() == 0) {
            assertTrue(System.nanoTime() - end < 0, "the engine thread never stood back for the poller");
            Thread.sleep(1);
        }
        rig.close();
        rig = null;
        assertFalse(a.isRunning(), "the device still runs after its last context closed");
        poller.interrupt();
        poller.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(poller.isAlive(), "the poller hangs");
        assertEquals(null, pollerFailure.get());
    }

    @Test
    void anInterruptedPollerDoesNotCloseTheUdpSockets() throws Exception {
        // an interrupted thread's I/O on a blocking NIO channel would close it for every QP of the
        // device; the UDP wire's channels are non-blocking, which the JDK does not close so
        try (SoftVerbsProvider udp = new SoftVerbsProvider(
                SoftRnicConfig.builder("ua").addressLiterals("127.0.0.41").udpPort(0).invokeOnPoll(true).build(),
                SoftRnicConfig.builder("ub").addressLiterals("127.0.0.42").udpPort(0).invokeOnPoll(true).build());
                Rig u = new Rig(ConformanceEnvironment.of("invoke-on-poll-udp", () -> udp.openDevice("ua"),
                        () -> udp.openDevice("ub")), 12)) {
            QpPair p = u.connect(new QpSettings());
            Mem src = u.mem(u.pdA, 64, ALL);
            Mem dst = u.mem(u.pdB, 64, ALL);
            // poll (not yet interrupted) until A's engine thread stands back: from then on this
            // thread's polls run A's cycles, with their socket I/O, rather than being denied
            SoftRnic ua = ((SoftContext) u.a).rnic;
            IbvWc[] wcs = {new IbvWc()};
            long end = System.nanoTime() + WAIT_NANOS;
            while (ua.standBacks() == 0) {
                assertEquals(0, u.cqA.pollCq(wcs, 1));
                assertTrue(System.nanoTime() - end < 0, "A's engine thread never stood back for the poller");
            }
            long invokes = ua.invokes();
            for (int i = 0; i < 20; i++) {
                p.b().postRecv(Rig.recv(i, dst, 0, 64));
                src.buf().putInt(0, i);
                Thread.currentThread().interrupt();
                try {
                    p.a().postSend(Rig.wr(i, IbvWrOpcode.SEND, src, 0, 4, null, 0));
                    IbvWc sent = spinFor(u.cqA, IbvWcOpcode.SEND);
                    assertTrue(Thread.currentThread().isInterrupted(), "the poll cleared the interrupt");
                    assertEquals(IbvWcStatus.SUCCESS, sent.status(), sent.toString());
                    IbvWc got = spinFor(u.cqB, IbvWcOpcode.RECV);
                    assertEquals(IbvWcStatus.SUCCESS, got.status(), got.toString());
                    assertEquals(i, dst.buf().getInt(0));
                } finally {
                    Thread.interrupted();
                }
            }
            assertTrue(ua.invokes() > invokes, "the interrupted poller ran no duty cycle");
        }
    }

    /**
     * Busy-polls {@code cq} (running the device's cycles) for the next completion, which must be
     * {@code op} unless that is null.
     */
    private static IbvWc spinFor(IbvCq cq, IbvWcOpcode op) throws VerbsException {
        IbvWc[] wcs = {new IbvWc()};
        long end = System.nanoTime() + WAIT_NANOS;
        while (cq.pollCq(wcs, 1) == 0) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("no " + (op == null ? "" : op + " ") + "completion within 20 s");
            }
            Thread.onSpinWait();
        }
        if (op != null) {
            assertEquals(op, wcs[0].opcode(), wcs[0].toString());
        }
        return new IbvWc().copyFrom(wcs[0]);
    }
}
