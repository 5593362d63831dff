package dev.virtuoso.verbs.soft.rnic;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * A completion event channel. Events are rare (one per arming of a CQ), so a lock and a condition
 * are fine here; the engine only touches them when a CQ it completes into is armed.
 */
final class SoftCompChannel implements IbvCompChannel {
    private final SoftContext context;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition ready = lock.newCondition();
    private final ArrayDeque<SoftCq> events = new ArrayDeque<>();
    private boolean closed;

    SoftCompChannel(SoftContext context) {
        this.context = context;
    }

    /** Engine thread: a CQ armed on this channel got a matching completion. */
    void fire(SoftCq cq) {
        lock.lock();
        try {
            if (!closed) {
                events.addLast(cq);
                ready.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public IbvCq getCqEvent(long timeout, TimeUnit unit) throws VerbsException,
            InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (true) {
                if (closed) {
                    throw new VerbsException(VerbsException.EINVAL, "completion channel closed");
                }
                SoftCq cq = events.pollFirst();
                if (cq != null) {
                    cq.eventDelivered();
                    return cq;
                }
                if (nanos <= 0) {
                    return null;
                }
                nanos = ready.awaitNanos(nanos);
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            events.clear();
            ready.signalAll();
        } finally {
            lock.unlock();
        }
        context.forget(this);
    }
}
