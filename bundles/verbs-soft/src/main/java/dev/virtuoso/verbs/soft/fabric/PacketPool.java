package dev.virtuoso.verbs.soft.fabric;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Free list of {@link Packet}s with direct buffers, shared by every sender and receiver of one
 * network. Grows in slabs when empty (warm-up), so steady state allocates nothing.
 */
final class PacketPool {
    private static final int SLAB_PACKETS = 64;
    private static final int MAX_POOLED = 1 << 16;

    private final MpmcRing<Packet> free = new MpmcRing<>(MAX_POOLED);
    private final int bufferBytes;
    private final AtomicLong allocated = new AtomicLong();

    PacketPool(int bufferBytes) {
        this.bufferBytes = bufferBytes;
    }

    int bufferBytes() {
        return bufferBytes;
    }

    /** @return packets allocated so far (pooled or in flight) */
    long allocated() {
        return allocated.get();
    }

    Packet take() {
        Packet p = free.poll();
        return p != null ? p : grow();
    }

    void release(Packet p) {
        p.source = null;
        p.target = null;
        p.channel = null;
        // A full free list means a burst far beyond steady state: let GC take the surplus.
        free.offer(p);
    }

    private synchronized Packet grow() {
        Packet p = free.poll();
        if (p != null) {
            return p;
        }
        ByteBuffer slab = ByteBuffer.allocateDirect(bufferBytes * SLAB_PACKETS);
        Packet first = null;
        for (int i = 0; i < SLAB_PACKETS; i++) {
            slab.limit((i + 1) * bufferBytes).position(i * bufferBytes);
            Packet q = new Packet(slab.slice());
            if (first == null) {
                first = q;
            } else {
                free.offer(q);
            }
        }
        allocated.addAndGet(SLAB_PACKETS);
        return first;
    }
}
