package dev.virtuoso.qpmanager.internal.engine;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A single-producer single-consumer ring of bytes over one direct buffer (Aeron-style: positions
 * only grow, published with ordered writes). The producer writes at the tail, the consumer reads
 * at the head; each side works through its own view, so neither allocates.
 */
final class ByteRing {
    private final ByteBuffer buffer;
    private final ByteBuffer writeView;
    private final ByteBuffer readView;
    private final int capacity;
    private final int mask;
    private final AtomicLong head = new AtomicLong();
    private final AtomicLong tail = new AtomicLong();

    /** @param capacity bytes, a power of two */
    ByteRing(int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two: " + capacity);
        }
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.buffer = ByteBuffer.allocateDirect(capacity);
        this.writeView = buffer.duplicate();
        this.readView = buffer.duplicate();
    }

    int capacity() {
        return capacity;
    }

    // ---------------------------------------------------------------- producer

    /** @return bytes the producer may write now */
    int free() {
        return capacity - (int) (tail.get() - head.get());
    }

    /**
     * Copies all of {@code src} (position..limit) if it fits.
     *
     * @return false, copying nothing, if there is not enough room
     */
    boolean write(ByteBuffer src) {
        int n = src.remaining();
        if (n > free()) {
            return false;
        }
        long t = tail.get();
        int at = (int) (t & mask);
        int first = Math.min(n, capacity - at);
        buffer.put(at, src, src.position(), first);
        if (first < n) {
            buffer.put(0, src, src.position() + first, n - first);
        }
        src.position(src.limit());
        tail.lazySet(t + n);
        return true;
    }

    /** @return the contiguous free region as a view (position..limit), for reading a socket into */
    ByteBuffer writable() {
        long t = tail.get();
        int at = (int) (t & mask);
        int n = Math.min(free(), capacity - at);
        writeView.limit(at + n).position(at);
        return writeView;
    }

    /** Publishes bytes written into {@link #writable()}. */
    void commitWrite(int n) {
        tail.lazySet(tail.get() + n);
    }

    // ---------------------------------------------------------------- consumer

    /** @return bytes the consumer may read now */
    int readable() {
        return (int) (tail.get() - head.get());
    }

    /** @return the contiguous readable region as a view, for writing to a socket */
    ByteBuffer readableView() {
        long h = head.get();
        int at = (int) (h & mask);
        int n = Math.min(readable(), capacity - at);
        readView.limit(at + n).position(at);
        return readView;
    }

    /**
     * Copies {@code n} readable bytes starting {@code skip} bytes after the head into {@code dst}
     * (at its position), without consuming them.
     */
    void peek(int skip, ByteBuffer dst, int n) {
        int at = (int) ((head.get() + skip) & mask);
        int first = Math.min(n, capacity - at);
        dst.put(dst.position(), buffer, at, first);
        if (first < n) {
            dst.put(dst.position() + first, buffer, 0, n - first);
        }
        dst.position(dst.position() + n);
    }

    /** Consumes {@code n} bytes. */
    void commitRead(int n) {
        head.lazySet(head.get() + n);
    }
}
