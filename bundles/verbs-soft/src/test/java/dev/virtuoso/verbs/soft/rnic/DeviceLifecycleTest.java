package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.Vnic;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.wire.DatagramHandler;
import dev.virtuoso.verbs.soft.wire.Wire;
import dev.virtuoso.verbs.soft.wire.WirePort;

/**
 * A device's start, its engine's failure handling and its control commands, on a wire the test
 * controls (no sockets, no fabric): a wire or port that cannot be opened, UDP port 0, a receive
 * that fails while the engine runs (counted, the engine carries on) or breaks the engine (the
 * device stops and refuses commands), and what a command's caller sees of its task's outcome.
 */
class DeviceLifecycleTest {
    private static final InetAddress A = SoftRnicConfig.literal("10.9.0.1");
    private static final InetAddress B = SoftRnicConfig.literal("10.9.0.2");
    private static final int PICKED_PORT = 40123;

    private SoftRnic rnic;

    @AfterEach
    void tearDown() {
        if (rnic != null) {
            rnic.close();
        }
    }

    /** A wire with nothing to receive; ports fail, receives throw, on demand. */
    static final class ControlledWire implements Wire {
        final List<InetSocketAddress> opened = new CopyOnWriteArrayList<>();
        final AtomicInteger closes = new AtomicInteger();
        /** open() of this port number (1-based) throws */
        volatile int failOpen;
        /** the next receive throws this, once */
        final AtomicReference<Exception> nextReceive = new AtomicReference<>();
        final AtomicInteger receives = new AtomicInteger();

        @Override
        public WirePort open(InetAddress localAddress, int udpPort) throws IOException {
            if (opened.size() + 1 == failOpen) {
                throw new IOException("address not available");
            }
            InetSocketAddress local = new InetSocketAddress(localAddress, udpPort == 0 ? PICKED_PORT : udpPort);
            opened.add(new InetSocketAddress(localAddress, udpPort));
            return new WirePort() {
                @Override
                public InetSocketAddress localAddress() {
                    return local;
                }

                @Override
                public boolean send(ByteBuffer datagram, InetSocketAddress destination) {
                    return true;
                }

                @Override
                public int receive(DatagramHandler handler, int limit) throws IOException {
                    receives.incrementAndGet();
                    Exception e = nextReceive.getAndSet(null);
                    if (e instanceof IOException) {
                        throw (IOException) e;
                    }
                    if (e != null) {
                        throw (RuntimeException) e;
                    }
                    return 0;
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public void await(long timeoutNanos) {
            LockSupport.parkNanos(Math.min(timeoutNanos, 200_000));
        }

        @Override
        public void wakeup() {
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    private static SoftRnicConfig.Builder config(ControlledWire wire) {
        return SoftRnicConfig.builder("ctl").addresses(A, B).wire(name -> wire);
    }

    private static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(1);
        }
    }

    @Test
    void aWireThatCannotBeCreatedFailsTheOpenWithEio() {
        rnic = new SoftRnic(SoftRnicConfig.builder("ctl").wire(name -> {
            throw new IOException("no wire");
        }).build());
        VerbsException e = assertThrows(VerbsException.class, rnic::open);
        assertEquals(VerbsException.EIO, e.errno());
        assertFalse(rnic.isRunning());

        rnic = new SoftRnic(SoftRnicConfig.builder("ctl").wire(name -> {
            throw new IllegalStateException("broken factory");
        }).build());
        assertEquals(VerbsException.EIO, assertThrows(VerbsException.class, rnic::open).errno());
        assertFalse(rnic.isRunning());
    }

    @Test
    void aPortThatCannotBeOpenedClosesTheWireAndStartsNothing() throws Exception {
        ControlledWire wire = new ControlledWire();
        wire.failOpen = 2;
        rnic = new SoftRnic(config(wire).udpPort(4791).build());
        VerbsException e = assertThrows(VerbsException.class, rnic::open);
        assertEquals(VerbsException.EIO, e.errno());
        assertEquals(1, wire.closes.get(), "the wire is closed once");
        assertFalse(rnic.isRunning());
        assertEquals(0, wire.receives.get(), "no engine ran");

        wire.failOpen = 0;
        wire.opened.clear();
        IbvContext c = rnic.open();
        assertTrue(rnic.isRunning(), "the next open starts the device");
        c.close();
    }

    @Test
    void portZeroGivesEveryVnicThePortPickedForTheFirst() throws Exception {
        ControlledWire wire = new ControlledWire();
        rnic = new SoftRnic(config(wire).udpPort(0).build());
        IbvContext c = rnic.open();
        assertEquals(List.of(new InetSocketAddress(A, 0), new InetSocketAddress(B, PICKED_PORT)), wire.opened);
        assertEquals(PICKED_PORT, c.udpPort());
        List<Vnic> vnics = c.vnics();
        assertEquals(2, vnics.size());
        assertEquals(A, vnics.get(0).address());
        assertEquals(0, vnics.get(0).gidIndex());
        assertEquals(B, vnics.get(1).address());
        assertEquals(1, vnics.get(1).gidIndex());
        assertEquals(2, rnic.vnicCount());
        assertSame(B, rnic.vnicAddress(1));
    }

    @Test
    void aReceiveFailureWhileRunningIsCountedAndTheEngineCarriesOn() throws Exception {
        ControlledWire wire = new ControlledWire();
        rnic = new SoftRnic(config(wire).build());
        IbvContext c = rnic.open();
        assertEquals(0, c.counters().get(VerbsCounter.DROP_RX_OVERRUN));
        wire.nextReceive.set(new IOException("socket error"));
        waitFor(() -> wire.nextReceive.get() == null, "the failing receive");
        waitFor(() -> c.counters().get(VerbsCounter.DROP_RX_OVERRUN) == 1, "the overrun count");
        assertTrue(rnic.isRunning());
        assertEquals("still here", rnic.call(e -> "still here"));
        assertEquals(1, c.counters().get(VerbsCounter.DROP_RX_OVERRUN));
    }

    @Test
    void anEngineFailureStopsTheDeviceAndItsCommands() throws Exception {
        ControlledWire wire = new ControlledWire();
        rnic = new SoftRnic(config(wire).build());
        rnic.open();
        wire.nextReceive.set(new IllegalStateException("engine bug"));
        waitFor(() -> !rnic.isRunning(), "the engine to stop");
        assertEquals(VerbsException.ENODEV, assertThrows(VerbsException.class, () -> rnic.call(e -> 1)).errno());
        assertEquals(0, rnic.counters.get(VerbsCounter.DROP_RX_OVERRUN), "a failure is not an overrun");
    }

    @Test
    void aCommandReportsItsTasksOutcome() throws Exception {
        ControlledWire wire = new ControlledWire();
        rnic = new SoftRnic(config(wire).commandTimeoutMillis(200).build());
        rnic.open();
        assertEquals(Integer.valueOf(7), rnic.call(e -> 7));
        assertEquals(VerbsException.EBUSY, assertThrows(VerbsException.class, () -> rnic.call(e -> {
            throw new VerbsException(VerbsException.EBUSY, "busy");
        })).errno(), "the task's errno");
        assertEquals(VerbsException.EIO, assertThrows(VerbsException.class, () -> rnic.call(e -> {
            throw new IllegalArgumentException("bug");
        })).errno(), "an unexpected exception");
        assertEquals("inner", rnic.call(e -> rnic.call(x -> "inner")), "a command run by a command runs at once");
        VerbsException slow = assertThrows(VerbsException.class, () -> rnic.call(e -> {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(600));
            return null;
        }));
        assertEquals(VerbsException.ETIMEDOUT, slow.errno());
        assertTrue(rnic.isRunning(), "a slow command does not stop the device");
    }

    @Test
    void closingTheDeviceClosesItsWireOnce() throws Exception {
        ControlledWire wire = new ControlledWire();
        rnic = new SoftRnic(config(wire).build());
        IbvContext first = rnic.open();
        IbvContext second = rnic.open();
        assertEquals(1, wire.opened.size() / 2, "one start for two contexts");
        rnic.close();
        assertFalse(rnic.isRunning());
        assertEquals(1, wire.closes.get());
        rnic.close();
        first.close();
        second.close();
        assertEquals(1, wire.closes.get(), "closing again does nothing");
        assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class, first::allocPd).errno());
    }
}
