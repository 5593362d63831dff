package dev.virtuoso.qpmanager.internal.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;

/**
 * The TCP control channel of an established connection, run by one thread of the connector's
 * {@link ControlIo} (shared by many connections), which alone touches the socket. The engine
 * thread writes whole frames into {@link #outbound} and reads raw bytes from {@link #inbound};
 * the I/O thread moves bytes between the rings and the socket, sends a PING when nothing was sent
 * for a heartbeat interval, and declares the peer gone when nothing arrived for the liveness
 * timeout or the stream ends.
 */
final class ControlChannel implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ControlChannel.class.getName());
    static final int OPEN = 0;
    static final int PEER_CLOSED = 1;
    static final int BROKEN = 2;
    /**
     * Bytes of the inbound ring (a power of two): several of the largest frames the peer may send
     * (1 KiB body). Control traffic is heartbeats and path management; the reassembly's travels on
     * the paths.
     */
    static final int RING_BYTES = 8 * 1024;
    /**
     * Bytes of the outbound ring: several frames of {@link ControlWriter#BODY_BYTES}; a writer that
     * finds the ring full waits for its next duty cycle.
     */
    static final int OUTBOUND_RING_BYTES = 8 * 1024;

    final ByteRing inbound = new ByteRing(RING_BYTES);
    final ByteRing outbound = new ByteRing(OUTBOUND_RING_BYTES);
    private final ControlIo.Loop loop;
    private final String id;
    private final SocketChannel socket;
    private final Runnable wakeEngine;
    private final long heartbeatNanos;
    private final long livenessNanos;
    private final ByteBuffer ping = ByteBuffer.allocate(Protocol.HEADER_BYTES);
    private final AtomicBoolean requested = new AtomicBoolean();
    private volatile int state = OPEN;
    private volatile String failure;
    private volatile boolean closed;
    // I/O thread only
    private SelectionKey key;
    private long lastRx;
    private long lastTx;
    /** Index in the loop's channel list, -1 when not in it (I/O thread only). */
    int index = -1;

    /**
     * @param io the connector's control I/O (a thread of it will run this channel)
     * @param id connection identifier (in log messages)
     * @param socket the connected socket (owned from now on)
     * @param leftover bytes already read past the handshake (flipped), fed to the engine first
     * @param wakeEngine wakes the engine thread when bytes arrive or the state changes
     * @param heartbeatNanos idle time after which a PING is sent
     * @param livenessNanos silence after which the peer is declared gone
     * @throws IOException if the socket cannot be made non-blocking
     */
    ControlChannel(ControlIo io, String id, SocketChannel socket, ByteBuffer leftover, Runnable wakeEngine, long heartbeatNanos,
            long livenessNanos) throws IOException {
        this.loop = io.assign();
        this.id = id;
        this.socket = socket;
        this.wakeEngine = wakeEngine;
        this.heartbeatNanos = heartbeatNanos;
        this.livenessNanos = livenessNanos;
        socket.configureBlocking(false);
        if (!inbound.write(leftover)) {
            throw new IOException("handshake left " + leftover.remaining() + " bytes, more than the control ring holds");
        }
        ping.limit(0);
    }

    /** Hands the channel to its I/O thread. */
    void start() {
        request();
    }

    /** @return OPEN, PEER_CLOSED or BROKEN */
    int state() {
        return state;
    }

    /** @return why the channel broke, or {@code null} */
    String failure() {
        return failure;
    }

    long heartbeatNanos() {
        return heartbeatNanos;
    }

    /**
     * Appends one frame to the outbound ring (engine thread).
     *
     * @param frame header and body (position..limit)
     * @return false if the ring is full
     */
    boolean offer(ByteBuffer frame) {
        return outbound.write(frame);
    }

    /** Engine thread: makes the I/O thread send what was offered. */
    void flush() {
        request();
    }

    private void request() {
        if (!requested.getAndSet(true)) {
            loop.request(this);
        }
    }

    // ---------------------------------------------------------------- I/O thread

    /** I/O thread: a requested service (first registration, a flush, or the close). */
    void serve(ControlIo.Loop l, long now) {
        requested.set(false);
        if (closed) {
            drop(l);
            return;
        }
        if (key == null) {
            if (state != OPEN) {
                return;
            }
            try {
                key = l.register(this, socket);
            } catch (IOException | RuntimeException e) {
                fail(BROKEN, "control channel failed: " + e);
                return;
            }
            lastRx = now;
            lastTx = now;
        }
        pump(now);
    }

    /** I/O thread: moves bytes both ways and updates what the selector waits for. */
    void pump(long now) {
        if (closed || state != OPEN) {
            drop(loop);
            return;
        }
        try {
            if (writeOut()) {
                lastTx = now;
            }
            int r = readIn();
            if (r < 0) {
                fail(PEER_CLOSED, "peer closed the control channel");
                return;
            }
            if (r > 0) {
                lastRx = now;
                wakeEngine.run();
            }
            interest();
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                fail(BROKEN, "control channel failed: " + e);
                LOG.log(System.Logger.Level.WARNING, "connection " + id + ": control channel failed", e);
            }
        }
    }

    /** I/O thread, every sweep: liveness, heartbeat, and reading again once the engine made room. */
    void sweep(long now) {
        if (closed || state != OPEN) {
            drop(loop);
            return;
        }
        if (now - lastRx > livenessNanos) {
            fail(BROKEN, "peer silent for " + (now - lastRx) / 1_000_000 + " ms");
            return;
        }
        if (now - lastTx >= heartbeatNanos && !ping.hasRemaining() && outbound.readable() == 0) {
            ping.clear();
            FrameHeader.write(ping, Protocol.PING, 0);
            ping.flip();
        }
        pump(now);
    }

    /** I/O thread: its loop stopped (the connector is closing); the engine sees a broken channel. */
    void loopStopped() {
        if (!closed && state == OPEN) {
            fail(BROKEN, "control I/O stopped");
        }
        drop(loop);
    }

    private void interest() {
        int ops = (inbound.free() > 0 ? SelectionKey.OP_READ : 0)
                | (ping.hasRemaining() || outbound.readable() > 0 ? SelectionKey.OP_WRITE : 0);
        if (key.interestOps() != ops) {
            key.interestOps(ops);
        }
    }

    /** @return true if bytes were written */
    private boolean writeOut() throws IOException {
        boolean wrote = false;
        if (ping.hasRemaining()) {
            wrote = socket.write(ping) > 0;
            if (ping.hasRemaining()) {
                return wrote;
            }
        }
        while (outbound.readable() > 0) {
            int n = socket.write(outbound.readableView());
            if (n <= 0) {
                break;
            }
            outbound.commitRead(n);
            wrote = true;
        }
        return wrote;
    }

    /** @return bytes read, or -1 at end of stream */
    private int readIn() throws IOException {
        int total = 0;
        while (inbound.free() > 0) {
            int n = socket.read(inbound.writable());
            if (n < 0) {
                return total > 0 ? total : -1;
            }
            if (n == 0) {
                break;
            }
            inbound.commitWrite(n);
            total += n;
        }
        return total;
    }

    private void fail(int s, String why) {
        failure = why;
        state = s;
        drop(loop);
        wakeEngine.run();
    }

    /** I/O thread: no more I/O on this channel (the engine closes the socket). */
    private void drop(ControlIo.Loop l) {
        if (key != null) {
            key.cancel();
        }
        l.forget(this);
    }

    // ---------------------------------------------------------------- engine thread

    /**
     * Closes without draining. Called by the engine thread. Idempotent.
     */
    @Override
    public void close() {
        close(0);
    }

    /**
     * Gives the I/O thread up to {@code drainNanos} to write what was offered, then closes the
     * socket and has the I/O thread forget the channel. Called by the engine thread. Idempotent.
     */
    void close(long drainNanos) {
        long deadline = System.nanoTime() + drainNanos;
        while (state == OPEN && !closed && outbound.readable() > 0 && System.nanoTime() < deadline) {
            flush();
            Thread.onSpinWait();
            Thread.yield();
        }
        closed = true;
        try {
            socket.close(); // safe from any thread: the selector drops the key
        } catch (IOException e) {
            // closing anyway
        }
        request();
    }
}
