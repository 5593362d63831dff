package dev.virtuoso.verbs.ibv;

import dev.virtuoso.spi.verbs.IbvMr;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/** A memory region over the application's own direct buffer (kept reachable while registered). */
final class NativeMr implements IbvMr {
    private final LibIbverbs lib;
    private final MemorySegment mr;
    private final ByteBuffer buffer;
    private final long address;
    private final int length;
    private final int lkey;
    private final int rkey;
    private final int access;
    private boolean closed;

    NativeMr(LibIbverbs lib, MemorySegment mr, ByteBuffer buffer, long address, int length, int lkey, int rkey,
            int access) {
        this.lib = lib;
        this.mr = mr;
        this.buffer = buffer;
        this.address = address;
        this.length = length;
        this.lkey = lkey;
        this.rkey = rkey;
        this.access = access;
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
        return buffer;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        LibIbverbs.destroy(lib.deregMr, mr, "ibv_dereg_mr");
    }
}
