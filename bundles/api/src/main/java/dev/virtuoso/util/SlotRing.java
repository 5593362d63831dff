package dev.virtuoso.util;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The project's one bounded ring: preallocated slots, each guarded by a sequence number (Dmitry
 * Vyukov's bounded queue). Producers claim a slot, fill it in place and publish it; consumers take
 * published slots in order, read them in place and release them. Nothing is allocated after
 * construction and no lock is taken.
 *
 * <p>Tickets are absolute positions (they only grow); a slot is addressed by its ticket.
 * <ul>
 * <li>Producers, any number at once: {@link #claim()}, fill {@link #slot(long)}, {@link #publish(long)}.
 * <li>Consumers, any number at once: {@link #acquire()}, read {@link #slot(long)}, {@link #release(long)}.
 * <li>One consumer alone may instead look before it takes: {@link #peek()} (or walk forward with
 * {@link #isPublished(long)}), then {@link #release(long)} tickets in order; a slot stays in use,
 * and counts against the limit, until released. Do not mix this with {@link #acquire()}.
 * </ul>
 * A producer that claimed must publish, and a consumer that took must release, or the ring stalls
 * at that slot.
 *
 * @param <S> slot type
 */
public final class SlotRing<S> {
    private static final VarHandle SEQ = MethodHandles.arrayElementVarHandle(long[].class);

    private final Object[] slots;
    private final long[] sequence;
    private final int mask;
    private final int limit;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicLong head = new AtomicLong();

    /**
     * @param limit most slots claimed and not yet taken (or, for the one consumer that peeks, not yet
     *     released) at once, at least 1; the ring has the next power of two of slots
     * @param factory makes slot {@code i}, once, at construction
     */
    public SlotRing(int limit, IntFunction<? extends S> factory) {
        if (limit < 1 || limit > (1 << 30)) {
            throw new IllegalArgumentException("limit out of range: " + limit);
        }
        int size = Integer.highestOneBit(Math.max(2, limit) - 1) << 1;
        this.limit = limit;
        this.mask = size - 1;
        this.slots = new Object[size];
        this.sequence = new long[size];
        for (int i = 0; i < size; i++) {
            slots[i] = factory.apply(i);
            sequence[i] = i;
        }
        VarHandle.releaseFence(); // the slots are visible to every thread that sees the ring
    }

    /** @return the number of slots (a power of two, at least {@link #limit()}) */
    public int capacity() {
        return mask + 1;
    }

    /** @return most slots in use at once */
    public int limit() {
        return limit;
    }

    /**
     * Producer: claims the next free slot.
     *
     * @return its ticket, or -1 if the ring is full
     */
    public long claim() {
        while (true) {
            long t = tail.get();
            long s = (long) SEQ.getAcquire(sequence, (int) t & mask);
            if (s == t) {
                if (t - head.get() >= limit) {
                    return -1;
                }
                if (tail.compareAndSet(t, t + 1)) {
                    return t;
                }
            } else if (s < t) {
                return -1; // the slot from one lap ago is still in use
            }
            // else another producer claimed it: look again
        }
    }

    /**
     * @param ticket from {@link #claim}, {@link #acquire}, {@link #peek} or an index known published
     * @return the slot at that ticket
     */
    @SuppressWarnings("unchecked")
    public S slot(long ticket) {
        return (S) slots[(int) ticket & mask];
    }

    /** Producer: makes a claimed slot visible to consumers (its writes happen-before their reads). */
    public void publish(long ticket) {
        SEQ.setRelease(sequence, (int) ticket & mask, ticket + 1);
    }

    /**
     * Consumer (any number): takes the oldest published slot.
     *
     * @return its ticket, or -1 if none is published
     */
    public long acquire() {
        while (true) {
            long h = head.get();
            long s = (long) SEQ.getAcquire(sequence, (int) h & mask);
            if (s == h + 1) {
                if (head.compareAndSet(h, h + 1)) {
                    return h;
                }
            } else if (s < h + 1) {
                return -1;
            }
            // else another consumer took it: look again
        }
    }

    /**
     * The one consumer: the oldest published slot, left in the ring.
     *
     * @return its ticket, or -1 if none is published
     */
    public long peek() {
        long h = head.get();
        return isPublished(h) ? h : -1;
    }

    /** @return true if the slot at {@code ticket} has been published and not released */
    public boolean isPublished(long ticket) {
        return (long) SEQ.getAcquire(sequence, (int) ticket & mask) == ticket + 1;
    }

    /**
     * Consumer: frees a slot taken by {@link #acquire} or reached by {@link #peek}; the one consumer
     * that peeks releases in ticket order.
     */
    public void release(long ticket) {
        if (head.get() == ticket) { // the peeking consumer's slot: taking it now (acquire moved head past it)
            head.lazySet(ticket + 1);
        }
        SEQ.setRelease(sequence, (int) ticket & mask, ticket + mask + 1);
    }

    /** @return true if no published slot waits (a hint while others work on the ring) */
    public boolean isEmpty() {
        return !isPublished(head.get());
    }

    /** @return slots claimed and not yet taken (a hint while others work on the ring) */
    public int size() {
        long n = tail.get() - head.get();
        return n <= 0 ? 0 : (int) Math.min(n, capacity());
    }
}
