package dev.virtuoso.qpmanager.internal.engine;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.RemoteMemory;
import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;

/** A region registered in a connection's protection domain. */
final class Region implements MemoryRegion {
    final MpConnection owner;
    final IbvMr mr;
    /** The engine's own view of the memory, for copies of small messages (absolute indexing only). */
    final ByteBuffer engineView;
    private final Set<Access> access;
    private final RemoteMemory remote;
    private volatile boolean closed;

    Region(MpConnection owner, IbvMr mr, Set<Access> access) {
        this.owner = owner;
        this.mr = mr;
        this.engineView = mr.buffer();
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access));
        this.remote = new RemoteMemory(mr.address(), mr.rkey(), mr.length());
    }

    /** @return the {@link IbvAccess} flags for the API rights */
    static int verbsAccess(Set<Access> access) {
        int flags = 0;
        if (access.contains(Access.LOCAL_WRITE)) {
            flags |= IbvAccess.LOCAL_WRITE;
        }
        if (access.contains(Access.REMOTE_WRITE)) {
            flags |= IbvAccess.REMOTE_WRITE | IbvAccess.LOCAL_WRITE;
        }
        if (access.contains(Access.REMOTE_READ)) {
            flags |= IbvAccess.REMOTE_READ;
        }
        return flags;
    }

    boolean closed() {
        return closed;
    }

    boolean can(Access a) {
        return access.contains(a) || (a == Access.LOCAL_WRITE && access.contains(Access.REMOTE_WRITE));
    }

    @Override
    public ByteBuffer buffer() {
        return mr.buffer();
    }

    @Override
    public int length() {
        return mr.length();
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    @Override
    public RemoteMemory remote() {
        return remote;
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            mr.close();
            owner.forget(this);
        }
    }

    @Override
    public String toString() {
        return "Region[" + mr.length() + " bytes, " + access + ", rkey=" + Integer.toHexString(mr.rkey()) + "]";
    }
}
