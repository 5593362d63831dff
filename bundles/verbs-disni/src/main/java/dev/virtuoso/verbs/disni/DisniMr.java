package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.virtuoso.spi.verbs.IbvMr;

/**
 * A memory region registered through DiSNI. Its {@link #address()} is the native address DiSNI
 * reports ({@code ibv_mr.addr}, the registered buffer's first byte), so SGEs and RETHs carry real
 * virtual addresses, as on any RNIC.
 */
final class DisniMr implements IbvMr {
    private static final System.Logger LOG = System.getLogger(DisniMr.class.getName());

    private final DisniPd pd;
    private final com.ibm.disni.verbs.IbvMr mr;
    private final ByteBuffer registered;
    private final int access;
    private final AtomicBoolean closed = new AtomicBoolean();

    DisniMr(DisniPd pd, com.ibm.disni.verbs.IbvMr mr, ByteBuffer registered, int access) {
        this.pd = pd;
        this.mr = mr;
        this.registered = registered;
        this.access = access;
    }

    @Override
    public long address() {
        return mr.getAddr();
    }

    @Override
    public int length() {
        return mr.getLength();
    }

    @Override
    public int lkey() {
        return mr.getLkey();
    }

    @Override
    public int rkey() {
        return mr.getRkey();
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public ByteBuffer buffer() {
        return registered.duplicate().clear();
    }

    /** @return whether [addr, addr+len) lies inside this region */
    boolean covers(long addr, long len) {
        long base = mr.getAddr();
        return !closed.get() && addr >= base && len >= 0 && addr - base + len <= mr.getLength();
    }

    /** @return a view of [addr, addr+len), which {@link #covers} must have accepted */
    ByteBuffer view(long addr, int len) {
        int off = (int) (addr - mr.getAddr());
        return registered.duplicate().clear().position(off).limit(off + len).slice();
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        pd.forget(this);
        try {
            mr.deregMr().execute().free();
        } catch (IOException e) {
            LOG.log(Level.DEBUG, "ibv_dereg_mr failed for lkey " + mr.getLkey(), e);
        }
    }
}
