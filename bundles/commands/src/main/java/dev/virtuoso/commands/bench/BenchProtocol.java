package dev.virtuoso.commands.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.api.RemoteMemory;

/**
 * The bench's control messages, carried as MP_SENDs in a small registered buffer: the client's
 * HELLO (operation and the sizes with their iteration counts; a warm-up connection's HELLO has a
 * type of its own, so the server serves it without reporting and waits for the next, and so has
 * the latency test's, to which the server answers every message with one of the same length), the
 * server's READY (its data region), and the client's DONE. Every message starts with a magic and a type; decoding checks
 * both and every length, since the peer is another process. Stateless.
 */
public final class BenchProtocol {

    /** Size of each side's control buffer. */
    public static final int CONTROL_BYTES = 4096;

    private static final int MAGIC = 0x5642454E; // "VBEN"
    private static final int HELLO = 1;
    private static final int READY = 2;
    private static final int DONE = 3;
    private static final int WARMUP_HELLO = 4;
    private static final int LATENCY_HELLO = 5;
    private static final int WARMUP_LATENCY_HELLO = 6;
    private static final int MAX_SIZES = 64;

    private BenchProtocol() {
    }

    /**
     * The client's request.
     *
     * @param op the operation
     * @param sizes message sizes
     * @param iterations iterations of each size
     * @param warmup a warm-up run (not measured; the measured connection follows)
     * @param latency the latency test: the server answers every message (op is SEND or WRITE)
     * @param region the client's data region, which the server's answers of the WRITE latency test
     *     are written into; {@code null} otherwise
     * @param rxDepth latency test: MP_RECVs each side keeps posted ahead (1 otherwise)
     */
    public record Hello(BenchOptions.Op op, List<Integer> sizes, List<Integer> iterations, boolean warmup,
            boolean latency, RemoteMemory region, int rxDepth) {

        /** A hello without a region (every test but the WRITE latency test), one receive at a time. */
        public Hello(BenchOptions.Op op, List<Integer> sizes, List<Integer> iterations, boolean warmup,
                boolean latency) {
            this(op, sizes, iterations, warmup, latency, null, 1);
        }

        /** @return messages the client will MP_SEND in total (SEND test) */
        public long totalMessages() {
            long n = 0;
            for (int i : iterations) {
                n += i;
            }
            return n;
        }
    }

    /** @param buf destination (position 0) @param h the hello @return bytes written */
    public static int writeHello(ByteBuffer buf, Hello h) {
        ByteBuffer b = buf.duplicate().clear();
        int type = h.latency() ? (h.warmup() ? WARMUP_LATENCY_HELLO : LATENCY_HELLO) : (h.warmup() ? WARMUP_HELLO : HELLO);
        b.putInt(MAGIC).putInt(type).putInt(h.op().ordinal()).putInt(h.sizes().size());
        for (int i = 0; i < h.sizes().size(); i++) {
            b.putInt(h.sizes().get(i)).putInt(h.iterations().get(i));
        }
        if (h.latency()) {
            b.putInt(h.rxDepth());
        }
        if (h.region() != null) {
            h.region().writeTo(b);
        }
        return b.position();
    }

    /**
     * @param buf the received message
     * @param length its length
     * @return the hello
     * @throws IllegalStateException if it is not a well-formed hello
     */
    public static Hello readHello(ByteBuffer buf, int length) {
        int type = length >= 8 && length <= buf.capacity() ? buf.getInt(4) : HELLO;
        boolean warmup = type == WARMUP_HELLO || type == WARMUP_LATENCY_HELLO;
        boolean latency = type == LATENCY_HELLO || type == WARMUP_LATENCY_HELLO;
        ByteBuffer b = header(buf, length, warmup || latency ? type : HELLO, 16);
        int op = b.getInt();
        int n = b.getInt();
        if (op < 0 || op >= BenchOptions.Op.values().length || n < 1 || n > MAX_SIZES || length < 16 + 8 * n) {
            throw new IllegalStateException("malformed HELLO from the client");
        }
        if (latency && op == BenchOptions.Op.READ.ordinal()) {
            throw new IllegalStateException("latency HELLO for READ: only SEND and WRITE");
        }
        boolean withRegion = latency && op == BenchOptions.Op.WRITE.ordinal();
        int depthBytes = latency ? Integer.BYTES : 0;
        if (latency && length < 16 + 8 * n + depthBytes) {
            throw new IllegalStateException("latency HELLO without its receive depth");
        }
        if (withRegion && length < 16 + 8 * n + depthBytes + RemoteMemory.ENCODED_BYTES) {
            throw new IllegalStateException("WRITE latency HELLO without the client's region");
        }
        List<Integer> sizes = new ArrayList<>();
        List<Integer> iters = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int size = b.getInt();
            int it = b.getInt();
            if (size < 1 || size > BenchOptions.MAX_SIZE || it < 1) {
                throw new IllegalStateException("HELLO asks for size " + size + " x " + it + " iterations");
            }
            sizes.add(size);
            iters.add(it);
        }
        int rxDepth = 1;
        if (latency) {
            rxDepth = b.getInt();
            if (rxDepth < 1 || rxDepth > BenchOptions.MAX_RX_DEPTH) {
                throw new IllegalStateException("latency HELLO asks for a receive depth of " + rxDepth + ", not 1.."
                        + BenchOptions.MAX_RX_DEPTH);
            }
        }
        RemoteMemory region = null;
        if (withRegion) {
            try {
                region = RemoteMemory.readFrom(b);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("malformed region in the client's HELLO: " + e.getMessage(), e);
            }
        }
        return new Hello(BenchOptions.Op.values()[op], sizes, iters, warmup, latency, region, rxDepth);
    }

    /** @param buf destination @param region the server's data region @return bytes written */
    public static int writeReady(ByteBuffer buf, RemoteMemory region) {
        ByteBuffer b = buf.duplicate().clear();
        b.putInt(MAGIC).putInt(READY);
        region.writeTo(b);
        return b.position();
    }

    /**
     * @param buf the received message
     * @param length its length
     * @return the server's data region
     * @throws IllegalStateException if it is not a well-formed READY
     */
    public static RemoteMemory readReady(ByteBuffer buf, int length) {
        ByteBuffer b = header(buf, length, READY, 8 + RemoteMemory.ENCODED_BYTES);
        try {
            return RemoteMemory.readFrom(b);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("malformed READY from the server: " + e.getMessage(), e);
        }
    }

    /** @param buf destination @return bytes written */
    public static int writeDone(ByteBuffer buf) {
        ByteBuffer b = buf.duplicate().clear();
        b.putInt(MAGIC).putInt(DONE);
        return b.position();
    }

    /**
     * @param buf the received message
     * @param length its length
     * @throws IllegalStateException if it is not a DONE
     */
    public static void readDone(ByteBuffer buf, int length) {
        header(buf, length, DONE, 8);
    }

    private static ByteBuffer header(ByteBuffer buf, int length, int type, int minLength) {
        if (length < minLength || length > buf.capacity()) {
            throw new IllegalStateException("control message of " + length + " bytes, expected at least " + minLength);
        }
        ByteBuffer b = buf.duplicate().clear();
        if (b.getInt() != MAGIC) {
            throw new IllegalStateException("the peer is not a virtuoso bench (bad magic)");
        }
        int t = b.getInt();
        if (t != type) {
            throw new IllegalStateException("expected control message " + type + ", got " + t);
        }
        return b;
    }
}
