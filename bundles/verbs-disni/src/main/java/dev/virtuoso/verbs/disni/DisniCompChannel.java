package dev.virtuoso.verbs.disni;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The SPI completion channel. libdisni gives each CQ its own native channel and its
 * {@code ibv_get_cq_event} does not say which CQ fired, so this channel waits on the native channels
 * of its CQs: with one CQ (the Virtuoso case: one shared CQ per connection) it blocks on it in
 * slices of {@value #SLICE_MS} ms; with several it polls them in turn with 1 ms waits. Events for
 * software completions ({@link DisniCq#addSynthetic}) are queued here. The slices let
 * {@link #close()} wake a waiter promptly.
 */
final class DisniCompChannel implements IbvCompChannel {
    static final int SLICE_MS = 50;

    private final DisniContext ctx;
    private volatile DisniCq[] cqs = new DisniCq[0];
    private final ConcurrentLinkedQueue<DisniCq> signalled = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    DisniCompChannel(DisniContext ctx) {
        this.ctx = ctx;
    }

    DisniContext context() {
        return ctx;
    }

    boolean isClosed() {
        return closed;
    }

    synchronized void attach(DisniCq cq) {
        DisniCq[] a = Arrays.copyOf(cqs, cqs.length + 1);
        a[a.length - 1] = cq;
        cqs = a;
    }

    synchronized void detach(DisniCq cq) {
        cqs = Arrays.stream(cqs).filter(c -> c != cq).toArray(DisniCq[]::new);
        signalled.remove(cq);
    }

    void signal(DisniCq cq) {
        signalled.add(cq);
    }

    @Override
    public IbvCq getCqEvent(long timeout, TimeUnit unit) throws VerbsException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(Math.max(0, timeout));
        int rr = 0;
        while (true) {
            if (closed) {
                throw new VerbsException(VerbsException.EINVAL, "completion channel is closed");
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            DisniCq s = signalled.poll();
            if (s != null) {
                return s;
            }
            long remainingMs = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            DisniCq[] list = cqs;
            if (list.length == 0) {
                if (remainingMs <= 0) {
                    return null;
                }
                Thread.sleep(Math.min(remainingMs, SLICE_MS));
                continue;
            }
            if (list.length == 1) {
                DisniCq cq = list[0];
                if (cq.awaitNativeEvent((int) Math.max(0, Math.min(remainingMs, SLICE_MS)))) {
                    return cq;
                }
            } else {
                for (int i = 0; i < list.length; i++) {
                    DisniCq cq = list[(rr + i) % list.length];
                    if (cq.awaitNativeEvent(remainingMs > 0 && i == list.length - 1 ? 1 : 0)) {
                        rr = (rr + i + 1) % list.length;
                        return cq;
                    }
                }
            }
            if (deadline - System.nanoTime() <= 0) {
                return signalled.poll();
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        ctx.forget(this);
    }
}
