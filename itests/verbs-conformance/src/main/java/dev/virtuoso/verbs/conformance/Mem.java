package dev.virtuoso.verbs.conformance;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

import dev.virtuoso.spi.verbs.IbvMr;

/**
 * A registered test buffer: direct memory plus its region.
 *
 * @param buf the whole buffer (absolute access only)
 * @param mr its registration
 */
public record Mem(ByteBuffer buf, IbvMr mr) {

    /** @param offset bytes from the start @return the virtual address for SGEs and RETHs */
    public long addr(long offset) {
        return mr.address() + offset;
    }

    /** @return the region length */
    public int size() {
        return buf.capacity();
    }

    /** Fills the whole buffer with pseudo-random bytes. @return this */
    public Mem fillRandom(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int n = buf.capacity();
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            buf.putLong(i, r.nextLong());
        }
        for (; i < n; i++) {
            buf.put(i, (byte) r.nextInt());
        }
        return this;
    }

    /** Fills the whole buffer with one byte value. @return this */
    public Mem fill(byte value) {
        int n = buf.capacity();
        for (int i = 0; i < n; i++) {
            buf.put(i, value);
        }
        return this;
    }

    /**
     * @return the index of the first byte where {@code [off, off+len)} of this buffer differs from
     *     {@code [otherOff, otherOff+len)} of {@code other}, or -1 if equal
     */
    public int mismatch(int off, Mem other, int otherOff, int len) {
        return buf.slice(off, len).mismatch(other.buf.slice(otherOff, len));
    }

    /** @return true if every byte of {@code [off, off+len)} equals {@code value} */
    public boolean all(int off, int len, byte value) {
        for (int i = off; i < off + len; i++) {
            if (buf.get(i) != value) {
                return false;
            }
        }
        return true;
    }
}
