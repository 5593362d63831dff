package dev.virtuoso.qpmanager.internal.engine;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;

/**
 * The TCP control channel of an established connection, run by its own agent thread
 * ({@code virtuoso-ctrl-<id>}) that alone touches the socket. The engine thread writes whole
 * frames into {@link #outbound} and reads raw bytes from {@link #inbound}; the agent moves bytes
 * between the rings and the socket, sends a PING when nothing was sent for a heartbeat interval,
 * and declares the peer gone when nothing arrived for the liveness timeout or the stream ends.
 */
final class ControlChannel implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ControlChannel.class.getName());
    static final int OPEN = 0;
    static final int PEER_CLOSED = 1;
    static final int BROKEN = 2;
    private static final int RING_BYTES = 1 << 20;

    final ByteRing inbound = new ByteRing(RING_BYTES);
    final ByteRing outbound = new ByteRing(RING_BYTES);
    private final String id;
    private final SocketChannel socket;
    private final Runnable wakeEngine;
    private final long heartbeatNanos;
    private final long livenessNanos;
    private final ByteBuffer ping = ByteBuffer.allocateDirect(Protocol.HEADER_BYTES);
    private final Selector selector;
    private final SelectionKey key;
    private volatile int state = OPEN;
    private volatile String failure;
    private volatile boolean running = true;
    private Thread thread;

    /**
     * @param id connection identifier (thread name)
     * @param socket the connected, non-blocking socket (owned from now on)
     * @param leftover bytes already read past the handshake (flipped), fed to the engine first
     * @param wakeEngine wakes the engine thread when bytes arrive or the state changes
     * @param heartbeatNanos idle time after which a PING is sent
     * @param livenessNanos silence after which the peer is declared gone
     */
    ControlChannel(String id, SocketChannel socket, ByteBuffer leftover, Runnable wakeEngine, long heartbeatNanos,
            long livenessNanos) throws IOException {
        this.id = id;
        this.socket = socket;
        this.wakeEngine = wakeEngine;
        this.heartbeatNanos = heartbeatNanos;
        this.livenessNanos = livenessNanos;
        socket.configureBlocking(false);
        this.selector = Selector.open();
        this.key = socket.register(selector, SelectionKey.OP_READ);
        inbound.write(leftover);
        ping.limit(0);
    }

    void start() {
        thread = new Thread(this::run, "virtuoso-ctrl-" + id);
        thread.setDaemon(true);
        thread.start();
    }

    /** @return OPEN, PEER_CLOSED or BROKEN */
    int state() {
        return state;
    }

    /** @return why the channel broke, or {@code null} */
    String failure() {
        return failure;
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

    /** Engine thread: makes the agent send what was offered (a wakeup is remembered if it is not selecting). */
    void flush() {
        selector.wakeup();
    }

    private void run() {
        long lastRx = System.nanoTime();
        long lastTx = lastRx;
        try {
            while (running) {
                long now = System.nanoTime();
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
                if (now - lastRx > livenessNanos) {
                    fail(BROKEN, "peer silent for " + (now - lastRx) / 1_000_000 + " ms");
                    return;
                }
                if (now - lastTx >= heartbeatNanos && !ping.hasRemaining() && outbound.readable() == 0) {
                    ping.clear();
                    FrameHeader.write(ping, Protocol.PING, 0);
                    ping.flip();
                    continue;
                }
                int ops = (inbound.free() > 0 ? SelectionKey.OP_READ : 0)
                        | (ping.hasRemaining() || outbound.readable() > 0 ? SelectionKey.OP_WRITE : 0);
                key.interestOps(ops);
                long waitMillis = Math.max(1, Math.min(heartbeatNanos - (now - lastTx), heartbeatNanos) / 1_000_000);
                selector.select(waitMillis);
                selector.selectedKeys().clear();
            }
        } catch (IOException | RuntimeException e) {
            if (running) {
                fail(BROKEN, "control channel failed: " + e);
                LOG.log(System.Logger.Level.WARNING, "connection " + id + ": control channel failed", e);
            }
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
        wakeEngine.run();
    }

    /**
     * Gives the agent up to {@code nanos} to write what was offered, then stops it and closes the
     * socket. Called by the engine thread. Idempotent.
     */
    @Override
    public void close() {
        close(0);
    }

    void close(long drainNanos) {
        long deadline = System.nanoTime() + drainNanos;
        while (state == OPEN && outbound.readable() > 0 && System.nanoTime() < deadline) {
            flush();
            Thread.onSpinWait();
            Thread.yield();
        }
        running = false;
        selector.wakeup();
        Thread t = thread;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
