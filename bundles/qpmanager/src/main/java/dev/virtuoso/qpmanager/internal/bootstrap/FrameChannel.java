package dev.virtuoso.qpmanager.internal.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.Consumer;

/**
 * Frame-by-frame I/O with a deadline on every step, for the handshake. Non-blocking socket plus a
 * private selector, so no read or write can outlive its deadline. Not thread-safe.
 */
public final class FrameChannel implements AutoCloseable {
    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final ByteBuffer in = ByteBuffer.allocate(Protocol.HEADER_BYTES + Protocol.MAX_HANDSHAKE_BODY);
    private final ByteBuffer body = ByteBuffer.allocate(Protocol.MAX_HANDSHAKE_BODY);
    private final ByteBuffer out = ByteBuffer.allocate(Protocol.HEADER_BYTES + Protocol.MAX_HANDSHAKE_BODY);
    private boolean detached;

    /** A received frame; the body is valid until the next {@link #receive}. */
    public record Frame(int type, ByteBuffer body) {
    }

    private FrameChannel(SocketChannel channel) throws IOException {
        this.channel = channel;
        channel.configureBlocking(false);
        channel.socket().setTcpNoDelay(true);
        this.selector = Selector.open();
        this.key = channel.register(selector, 0);
    }

    /**
     * Connects within a deadline.
     *
     * @param remote the listener's address
     * @param deadlineNanos {@link System#nanoTime()} deadline
     * @return the channel
     * @throws IOException if the connection fails or times out ({@link SocketTimeoutException})
     */
    public static FrameChannel connect(InetSocketAddress remote, long deadlineNanos) throws IOException {
        SocketChannel ch = SocketChannel.open();
        FrameChannel fc = null;
        try {
            fc = new FrameChannel(ch);
            if (!ch.connect(remote)) {
                fc.await(SelectionKey.OP_CONNECT, deadlineNanos, "connect to " + remote);
                ch.finishConnect();
            }
            return fc;
        } catch (IOException | RuntimeException e) {
            if (fc != null) {
                fc.close();
            } else {
                ch.close();
            }
            throw e;
        }
    }

    /**
     * Wraps an accepted connection.
     *
     * @param ch the accepted channel
     * @return the frame channel
     * @throws IOException if it cannot be configured
     */
    public static FrameChannel accepted(SocketChannel ch) throws IOException {
        try {
            return new FrameChannel(ch);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Wraps an accepted connection of which the listener already read the first bytes.
     *
     * @param ch the accepted channel
     * @param received bytes already read (position..limit), at most one handshake frame
     * @return the frame channel, which reads them first
     * @throws IOException if it cannot be configured
     */
    public static FrameChannel accepted(SocketChannel ch, ByteBuffer received) throws IOException {
        FrameChannel fc = accepted(ch);
        fc.in.put(received);
        return fc;
    }

    /** @return the peer's address, or {@code null} if unknown */
    public InetSocketAddress remoteAddress() {
        try {
            return (InetSocketAddress) channel.getRemoteAddress();
        } catch (IOException e) {
            return null;
        }
    }

    /**
     * Sends one frame.
     *
     * @param type frame type
     * @param writer writes the body into the buffer it is given
     * @param deadlineNanos deadline
     * @throws IOException on failure or timeout
     */
    public void send(int type, Consumer<ByteBuffer> writer, long deadlineNanos) throws IOException {
        out.clear();
        out.position(Protocol.HEADER_BYTES);
        writer.accept(out);
        int len = out.position() - Protocol.HEADER_BYTES;
        out.position(0);
        FrameHeader.write(out, type, len);
        out.position(Protocol.HEADER_BYTES + len).flip();
        while (out.hasRemaining()) {
            if (channel.write(out) == 0) {
                await(SelectionKey.OP_WRITE, deadlineNanos, "send " + Protocol.typeName(type));
            }
        }
    }

    /**
     * Receives one frame.
     *
     * @param deadlineNanos deadline
     * @return the frame
     * @throws IOException on failure, end of stream or timeout
     * @throws ProtocolException if the frame is malformed or too large
     */
    public Frame receive(long deadlineNanos) throws IOException, ProtocolException {
        while (true) {
            if (in.position() >= Protocol.HEADER_BYTES) {
                int len = FrameHeader.check(in, 0, Protocol.MAX_HANDSHAKE_BODY);
                int total = Protocol.HEADER_BYTES + len;
                if (in.position() >= total) {
                    int type = FrameHeader.type(in, 0);
                    body.clear();
                    body.put(0, in, Protocol.HEADER_BYTES, len);
                    body.limit(len);
                    in.flip().position(total);
                    in.compact();
                    return new Frame(type, body);
                }
            }
            int n = channel.read(in);
            if (n < 0) {
                throw new EOFException("peer closed the connection");
            }
            if (n == 0) {
                await(SelectionKey.OP_READ, deadlineNanos, "receive");
            }
        }
    }

    private void await(int op, long deadlineNanos, String what) throws IOException {
        key.interestOps(op);
        try {
            while (true) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new InterruptedIOException(what + " interrupted (the listener is closing)");
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    throw new SocketTimeoutException(what + " timed out");
                }
                int ready = selector.select(Math.max(1, left / 1_000_000));
                selector.selectedKeys().clear();
                if (ready > 0 && (key.readyOps() & op) != 0) {
                    return;
                }
            }
        } finally {
            if (key.isValid()) {
                key.interestOps(0);
            }
        }
    }

    /**
     * Hands the socket over (to the control channel) after the handshake.
     *
     * @param leftover receives bytes already read beyond the last frame
     * @return the non-blocking socket channel, no longer owned by this object
     * @throws IOException if the selector cannot be released
     */
    public SocketChannel detach(ByteBuffer leftover) throws IOException {
        in.flip();
        leftover.put(in);
        in.clear();
        key.cancel();
        selector.close();
        detached = true;
        return channel;
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // closing anyway
        }
        if (!detached) {
            try {
                channel.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
