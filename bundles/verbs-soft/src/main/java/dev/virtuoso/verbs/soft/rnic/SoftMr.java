package dev.virtuoso.verbs.soft.rnic;

import java.nio.ByteBuffer;

import dev.virtuoso.spi.verbs.IbvMr;

/**
 * A registered region: a direct buffer mapped at a synthetic, random, 4 KiB-aligned virtual
 * address, with random keys. The engine copies packet payloads straight into and out of
 * {@link #memory} with absolute bulk operations; every address from an SGE or a RETH goes through
 * {@link #offsetOf} first, so nothing outside {@code [address, address + length)} is touched.
 */
final class SoftMr implements IbvMr {
    final SoftPd pd;
    /** The registered bytes: position 0, limit {@link #length}; only absolute access is used. */
    final ByteBuffer memory;
    final long address;
    final int length;
    final int lkey;
    final int rkey;
    final int access;
    /** Cleared on deregistration; the engine checks it before each copy. */
    volatile boolean valid = true;

    SoftMr(SoftPd pd, ByteBuffer memory, long address, int lkey, int rkey, int access) {
        this.pd = pd;
        this.memory = memory;
        this.address = address;
        this.length = memory.capacity();
        this.lkey = lkey;
        this.rkey = rkey;
        this.access = access;
    }

    /**
     * Bounds check for {@code [va, va + len)}.
     *
     * @param va virtual address (any 64-bit value, e.g. from the wire)
     * @param len byte count (non-negative; unsigned 32-bit values from the wire fit in a long)
     * @return the offset of {@code va} in the region, or -1 if the range is not entirely inside it
     */
    long offsetOf(long va, long len) {
        long off = va - address;
        if (len < 0 || off < 0 || off > length - len) {
            return -1;
        }
        return off;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public int length() {
        return length;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ByteBuffer buffer() {
        return memory.duplicate().clear();
    }

    @Override
    public void close() {
        pd.deregister(this);
    }

    @Override
    public String toString() {
        return "SoftMr[addr=0x" + Long.toHexString(address) + ", len=" + length + ", lkey=0x"
                + Integer.toHexString(lkey) + ", rkey=0x" + Integer.toHexString(rkey) + "]";
    }
}
