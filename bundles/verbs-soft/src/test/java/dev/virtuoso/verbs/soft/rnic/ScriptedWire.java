package dev.virtuoso.verbs.soft.rnic;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import dev.virtuoso.verbs.soft.wire.DatagramHandler;
import dev.virtuoso.verbs.soft.wire.Wire;
import dev.virtuoso.verbs.soft.wire.WirePort;

/**
 * A {@link Wire} around another one that lets a test script what the device's engine thread
 * experiences: stalls at chosen points (as when the OS deschedules it), datagrams that stay
 * invisible for a while, and received datagrams that are lost. The hooks run on the engine thread.
 */
final class ScriptedWire implements Wire {
    /** Longest a scripted stall waits for its condition. */
    static final long STALL_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(10);

    private final Wire delegate;
    private final ConcurrentLinkedQueue<Runnable> afterSend = new ConcurrentLinkedQueue<>();
    private volatile BooleanSupplier stallNextReceive;
    private volatile BooleanSupplier visibleWhen;
    private volatile int receiveLimit = Integer.MAX_VALUE;
    private final AtomicInteger skipBeforeDrop = new AtomicInteger();
    private final AtomicInteger dropsLeft = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();

    ScriptedWire(Wire delegate) {
        this.delegate = delegate;
    }

    /** Queues a one-shot action run right after a later send (one per send, in order). */
    void afterSend(Runnable action) {
        afterSend.add(action);
    }

    /**
     * The next receive call does not look at the port: it waits until {@code until} holds (the
     * engine "found the queue empty and was descheduled" while datagrams arrived), then returns 0.
     */
    void stallNextReceive(BooleanSupplier until) {
        stallNextReceive = until;
    }

    /** Receive calls see nothing until {@code nanoTime} (what arrived stays queued). */
    void hideReceivesUntil(long nanoTime) {
        hideReceivesUntil(() -> System.nanoTime() - nanoTime >= 0);
    }

    /** Receive calls see nothing until {@code condition} holds (what arrived stays queued). */
    void hideReceivesUntil(BooleanSupplier condition) {
        visibleWhen = condition;
    }

    /** Each receive call hands over at most {@code datagrams}. */
    void receiveLimit(int datagrams) {
        receiveLimit = datagrams;
    }

    private boolean hidden() {
        BooleanSupplier v = visibleWhen;
        if (v == null) {
            return false;
        }
        if (v.getAsBoolean()) {
            visibleWhen = null;
            return false;
        }
        return true;
    }

    /** Loses received datagram number {@code skip + 1} .. {@code skip + n} from now on. */
    void dropReceived(int skip, int n) {
        skipBeforeDrop.set(skip);
        dropsLeft.set(n);
    }

    /** @return datagrams lost by {@link #dropReceived} */
    int dropped() {
        return dropped.get();
    }

    /** Blocks the calling (engine) thread until {@code condition} holds, at most the stall limit. */
    static void stallUntil(BooleanSupplier condition) {
        long end = System.nanoTime() + STALL_LIMIT_NANOS;
        while (!condition.getAsBoolean() && System.nanoTime() - end < 0) {
            LockSupport.parkNanos(200_000);
        }
    }

    /** Blocks the calling (engine) thread for {@code nanos}. */
    static void stallFor(long nanos) {
        long end = System.nanoTime() + nanos;
        stallUntil(() -> System.nanoTime() - end >= 0);
    }

    @Override
    public WirePort open(InetAddress localAddress, int udpPort) throws IOException {
        return new Port(delegate.open(localAddress, udpPort));
    }

    @Override
    public void await(long timeoutNanos) throws IOException {
        if (hidden()) {
            // queued data would end the wait at once: poll while it is invisible instead
            LockSupport.parkNanos(Math.min(200_000, timeoutNanos));
            return;
        }
        delegate.await(timeoutNanos);
    }

    @Override
    public void wakeup() {
        delegate.wakeup();
    }

    @Override
    public void close() {
        delegate.close();
    }

    private final class Port implements WirePort {
        private final WirePort port;

        Port(WirePort port) {
            this.port = port;
        }

        @Override
        public InetSocketAddress localAddress() {
            return port.localAddress();
        }

        @Override
        public boolean send(ByteBuffer datagram, InetSocketAddress destination) throws IOException {
            boolean sent = port.send(datagram, destination);
            if (sent) {
                Runnable action = afterSend.poll();
                if (action != null) {
                    action.run();
                }
            }
            return sent;
        }

        @Override
        public int receive(DatagramHandler handler, int limit) throws IOException {
            BooleanSupplier stall = stallNextReceive;
            if (stall != null) {
                stallNextReceive = null;
                stallUntil(stall);
                return 0;
            }
            if (hidden()) {
                return 0;
            }
            return port.receive((d, s, t) -> {
                if (dropsLeft.get() > 0 && skipBeforeDrop.getAndDecrement() <= 0) {
                    dropsLeft.decrementAndGet();
                    dropped.incrementAndGet();
                    return;
                }
                handler.onDatagram(d, s, t);
            }, Math.min(limit, receiveLimit));
        }

        @Override
        public void close() {
            port.close();
        }
    }
}
