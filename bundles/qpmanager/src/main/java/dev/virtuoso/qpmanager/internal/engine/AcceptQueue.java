package dev.virtuoso.qpmanager.internal.engine;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;

/**
 * Established connections waiting for {@code accept}: closing the queue wakes every waiting
 * {@code accept} at once (with CLOSED) instead of leaving it to its timeout, and hands back the
 * connections nobody took.
 */
final class AcceptQueue {
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<MpConnection> queue = new ArrayDeque<>();
    private boolean closed;

    /** @return false if the queue is closed: the caller closes {@code c} */
    boolean add(MpConnection c) {
        lock.lock();
        try {
            if (closed) {
                return false;
            }
            queue.add(c);
            changed.signal();
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return the oldest connection, or {@code null} if none came within the timeout
     * @throws VirtuosoException CLOSED if the queue is closed, before or while waiting
     */
    MpConnection take(long timeout, TimeUnit unit) throws VirtuosoException, InterruptedException {
        long left = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            while (queue.isEmpty()) {
                if (closed) {
                    throw new VirtuosoException(Reason.CLOSED, "listener is closed");
                }
                if (left <= 0) {
                    return null;
                }
                left = changed.awaitNanos(left);
            }
            return queue.poll();
        } finally {
            lock.unlock();
        }
    }

    /** Closes the queue and wakes every waiting {@link #take}; @return the connections nobody took */
    List<MpConnection> close() {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
            List<MpConnection> left = new ArrayList<>(queue);
            queue.clear();
            return left;
        } finally {
            lock.unlock();
        }
    }
}
