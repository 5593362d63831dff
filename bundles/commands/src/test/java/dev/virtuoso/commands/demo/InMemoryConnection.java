package dev.virtuoso.commands.demo;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.RemoteMemory;

/**
 * Test double of one end of a connection whose peer is in the same object pair: WRITEs and SENDs
 * copy bytes at post time; completions are released in a shuffled order (as a multipath connection
 * may complete them), and a chosen request can have one byte corrupted on the way, so the tests
 * see whether the demo's transfer loop really checks every byte and reuses slots safely.
 */
final class InMemoryConnection implements MultipathConnection {
    private final Map<Integer, ByteBuffer> regions = new HashMap<>();
    private final List<MpCompletion> ready = new ArrayList<>();
    private final Deque<long[]> recvs = new ArrayDeque<>(); // wrId, rkey, offset, length
    private final Random random = new Random(1);
    private InMemoryConnection peer;
    private long corruptWrId = -1;
    private long bytes;
    private int nextKey = 1;

    static InMemoryConnection[] pair() {
        InMemoryConnection a = new InMemoryConnection();
        InMemoryConnection b = new InMemoryConnection();
        a.peer = b;
        b.peer = a;
        return new InMemoryConnection[] {a, b};
    }

    /** @param wrId the request whose first byte arrives flipped */
    void corrupt(long wrId) {
        corruptWrId = wrId;
    }

    @Override
    public String id() {
        return "mem-" + System.identityHashCode(this);
    }

    @Override
    public ConnectionState state() {
        return ConnectionState.ESTABLISHED;
    }

    @Override
    public InetSocketAddress remoteBootstrapAddress() {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 1);
    }

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<Access> access) {
        int key = nextKey++;
        regions.put(key, buffer);
        return new MemoryRegion() {
            @Override
            public ByteBuffer buffer() {
                return buffer.duplicate().clear();
            }

            @Override
            public int length() {
                return buffer.capacity();
            }

            @Override
            public Set<Access> access() {
                return access;
            }

            @Override
            public RemoteMemory remote() {
                return new RemoteMemory(0, key, buffer.capacity());
            }

            @Override
            public void close() {
                regions.remove(key);
            }
        };
    }

    private ByteBuffer local(MemoryRegion r) {
        return regions.get(r.remote().rkey());
    }

    private void copy(ByteBuffer src, int srcOff, ByteBuffer dst, int dstOff, int len, long wrId) {
        dst.put(dstOff, src, srcOff, len);
        if (wrId == corruptWrId && len > 0) {
            dst.put(dstOff, (byte) (dst.get(dstOff) ^ 0x55));
        }
        bytes += len;
    }

    private void complete(long wrId, MpOpcode op, long len) {
        ready.add(new MpCompletion().set(wrId, op, MpStatus.SUCCESS, len, 1, null));
    }

    @Override
    public void postWrite(long wrId, MemoryRegion local, long localOffset, long length, RemoteMemory remote,
            long remoteOffset) {
        copy(local(local), (int) localOffset, peer.regions.get(remote.rkey()), (int) remoteOffset, (int) length, wrId);
        complete(wrId, MpOpcode.WRITE, length);
    }

    @Override
    public void postRead(long wrId, MemoryRegion local, long localOffset, long length, RemoteMemory remote,
            long remoteOffset) {
        throw new UnsupportedOperationException("not used by the demo");
    }

    @Override
    public void postSend(long wrId, MemoryRegion local, long offset, long length) {
        long[] r = peer.recvs.removeFirst();
        copy(local(local), (int) offset, peer.regions.get((int) r[1]), (int) r[2], (int) length, wrId);
        complete(wrId, MpOpcode.SEND, length);
        peer.complete(r[0], MpOpcode.RECV, length);
    }

    @Override
    public void postRecv(long wrId, MemoryRegion local, long offset, long length) {
        recvs.addLast(new long[] {wrId, local.remote().rkey(), offset, length});
    }

    @Override
    public int pollCompletions(MpCompletion[] out) {
        Collections.shuffle(ready, random);
        int n = 0;
        // release some, not all: completions trickle in out of order
        while (n < out.length && !ready.isEmpty() && (n == 0 || random.nextBoolean())) {
            out[n++].copyFrom(ready.remove(ready.size() - 1));
        }
        return n;
    }

    @Override
    public boolean awaitCompletion(MpCompletion out, long timeout, TimeUnit unit) {
        if (ready.isEmpty()) {
            return false;
        }
        out.copyFrom(ready.remove(0));
        return true;
    }

    @Override
    public List<PathStats> pathStats() {
        return List.of(new PathStats(0, InetAddress.getLoopbackAddress(), InetAddress.getLoopbackAddress(),
                PathState.UP, bytes, 0, 0, 0, 0, 0, 0, -1));
    }

    @Override
    public int addPath(InetAddress local, InetAddress remote) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void removePath(int pathId) {
        throw new UnsupportedOperationException();
    }

    @Override
    public String loadBalancer() {
        return "mem";
    }

    @Override
    public void setLoadBalancer(String name) {
    }

    @Override
    public String congestionAvoidance() {
        return "mem";
    }

    @Override
    public void setCongestionAvoidance(String name) {
    }

    @Override
    public void disconnect(long timeout, TimeUnit unit) {
    }

    @Override
    public void close() {
    }
}
