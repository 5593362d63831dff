package dev.virtuoso.qpmanager.internal.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.qpmanager.internal.bootstrap.FrameChannel.Frame;

/**
 * One frame channel against a raw loopback socket. Bytes are written before they are received, so
 * a correct channel never waits; the short deadlines only end a wrong one quickly.
 */
class FrameChannelTest {
    private static final long SHORT = 300_000_000L;
    private static final long LONG = 5_000_000_000L;
    private ServerSocketChannel listener;
    private InetSocketAddress address;
    private FrameChannel fc;
    private SocketChannel raw;

    @BeforeEach
    void connect() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        address = (InetSocketAddress) listener.getLocalAddress();
        fc = FrameChannel.connect(address, System.nanoTime() + LONG);
        raw = listener.accept();
    }

    @AfterEach
    void close() throws IOException {
        fc.close();
        raw.close();
        listener.close();
    }

    private static long soon() {
        return System.nanoTime() + 2_000_000_000L;
    }

    private static ByteBuffer frame(int type, byte... body) {
        ByteBuffer b = ByteBuffer.allocate(Protocol.HEADER_BYTES + body.length);
        FrameHeader.write(b, type, body.length);
        return b.put(body).flip();
    }

    private static ByteBuffer concat(ByteBuffer... parts) {
        int n = 0;
        for (ByteBuffer p : parts) {
            n += p.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(n);
        for (ByteBuffer p : parts) {
            all.put(p);
        }
        return all.flip();
    }

    private void rawWrite(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            raw.write(b);
        }
    }

    private static byte[] remaining(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    @Test
    void sendsOneFramedBody() throws Exception {
        fc.send(Protocol.CONNECT, b -> b.put((byte) 1).put((byte) 2).put((byte) 3), soon());
        ByteBuffer got = ByteBuffer.allocate(15);
        raw.socket().setSoTimeout(2000);
        var in = raw.socket().getInputStream();
        for (int i = 0; i < 15; i++) {
            int v = in.read();
            assertTrue(v >= 0, "frame cut short at " + i);
            got.put((byte) v);
        }
        got.flip();
        assertEquals(3, FrameHeader.check(got, 0, 3));
        assertEquals(Protocol.CONNECT, FrameHeader.type(got, 0));
        assertEquals(1, got.get(12));
        assertEquals(3, got.get(14));
    }

    @Test
    void receivesAnEmptyFrameAloneAndFramesThatArriveTogether() throws Exception {
        rawWrite(frame(Protocol.READY));
        Frame ready = fc.receive(soon());
        assertEquals(Protocol.READY, ready.type());
        assertEquals(0, ready.body().remaining(), "a header alone is a whole frame");

        rawWrite(concat(frame(Protocol.PING, (byte) 1, (byte) 2, (byte) 3, (byte) 4), frame(Protocol.ERROR, (byte) 9,
                (byte) 8)));
        Frame ping = fc.receive(soon());
        assertEquals(Protocol.PING, ping.type());
        assertArrayEquals(new byte[] {1, 2, 3, 4}, remaining(ping.body()));
        Frame error = fc.receive(System.nanoTime() + SHORT);
        assertEquals(Protocol.ERROR, error.type(), "the second frame came with the first");
        assertArrayEquals(new byte[] {9, 8}, remaining(error.body()));
    }

    @Test
    void aFrameSplitAcrossWritesIsAssembled() throws Exception {
        ByteBuffer whole = frame(Protocol.ACCEPT, (byte) 5, (byte) 6, (byte) 7);
        rawWrite(ByteBuffer.wrap(remaining(whole), 0, 13));
        Thread t = new Thread(() -> {
            try {
                Thread.sleep(50);
                rawWrite(ByteBuffer.wrap(remaining(whole), 13, 2));
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, "frame-channel-test-writer");
        t.start();
        Frame f = fc.receive(System.nanoTime() + LONG);
        t.join(5000);
        assertEquals(Protocol.ACCEPT, f.type());
        assertArrayEquals(new byte[] {5, 6, 7}, remaining(f.body()));
    }

    @Test
    void aMissingFrameTimesOutAtItsDeadline() throws Exception {
        rawWrite(ByteBuffer.wrap(remaining(frame(Protocol.HELLO, new byte[10])), 0, 14));
        long t0 = System.nanoTime();
        assertThrows(SocketTimeoutException.class, () -> fc.receive(System.nanoTime() + SHORT));
        assertTrue(System.nanoTime() - t0 >= SHORT, "not before the deadline");
        assertThrows(SocketTimeoutException.class, () -> fc.receive(System.nanoTime() - 1), "deadline passed");
    }

    @Test
    void anOversizedHeaderIsRefusedBeforeItsBodyArrives() throws Exception {
        ByteBuffer h = ByteBuffer.allocate(12).putInt(Protocol.MAGIC).put((byte) Protocol.VERSION).put((byte) Protocol.HELLO)
                .putShort((short) 0).putInt(Protocol.MAX_HANDSHAKE_BODY + 1).flip();
        rawWrite(h);
        ProtocolException e = assertThrows(ProtocolException.class, () -> fc.receive(soon()));
        assertTrue(e.getMessage().contains("exceeds the limit"), e.getMessage());
    }

    @Test
    void aFrameOfExactlyTheHandshakeLimitIsReceived() throws Exception {
        byte[] body = new byte[Protocol.MAX_HANDSHAKE_BODY];
        body[body.length - 1] = 42;
        rawWrite(frame(Protocol.CONNECT, body));
        Frame f = fc.receive(System.nanoTime() + LONG);
        assertEquals(Protocol.MAX_HANDSHAKE_BODY, f.body().remaining());
        assertEquals(42, f.body().get(Protocol.MAX_HANDSHAKE_BODY - 1));
    }

    @Test
    void thePeerClosingIsAnEndOfStream() throws Exception {
        raw.close();
        assertThrows(EOFException.class, () -> fc.receive(soon()));
    }

    @Test
    void closingClosesTheSocket() throws Exception {
        fc.close();
        raw.socket().setSoTimeout(2000);
        assertEquals(-1, raw.socket().getInputStream().read(), "the peer sees the end of the stream");
    }

    @Test
    void knowsThePeerAddress() throws Exception {
        assertEquals(raw.getLocalAddress(), fc.remoteAddress());
        fc.close();
        assertEquals(null, fc.remoteAddress(), "unknown once closed");
    }

    @Test
    void detachHandsOverTheSocketAndTheBytesReadBeyondTheLastFrame() throws Exception {
        rawWrite(concat(frame(Protocol.READY), ByteBuffer.wrap(new byte[] {1, 2, 3, 4, 5})));
        assertEquals(Protocol.READY, fc.receive(soon()).type());
        ByteBuffer leftover = ByteBuffer.allocate(64);
        SocketChannel ch = fc.detach(leftover);
        leftover.flip();
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, remaining(leftover));
        assertFalse(ch.isRegistered(), "no longer registered with the handshake's selector");
        assertFalse(ch.isBlocking());
        assertTrue(ch.getOption(StandardSocketOptions.TCP_NODELAY), "frames are sent without delay");
        fc.close();
        assertTrue(ch.isOpen(), "closing a detached frame channel leaves the socket to its new owner");
        ch.close();
    }

    @Test
    void anAcceptedChannelReadsTheBytesTheListenerAlreadyTookFirst() throws Exception {
        try (SocketChannel client = SocketChannel.open(address)) {
            ByteBuffer first = concat(frame(Protocol.HELLO, (byte) 7), ByteBuffer.wrap(remaining(frame(Protocol.PING)),
                    0, 4));
            FrameChannel server = FrameChannel.accepted(listener.accept(), first);
            try {
                Frame hello = server.receive(System.nanoTime() + SHORT);
                assertEquals(Protocol.HELLO, hello.type());
                assertArrayEquals(new byte[] {7}, remaining(hello.body()));
                ByteBuffer rest = ByteBuffer.wrap(remaining(frame(Protocol.PING)), 4, 8);
                while (rest.hasRemaining()) {
                    client.write(rest);
                }
                assertEquals(Protocol.PING, server.receive(soon()).type(), "joined with the bytes taken first");
            } finally {
                server.close();
            }
        }
    }

    @Test
    void sendingToAPeerThatNeverReadsTimesOut() throws Exception {
        byte[] body = new byte[Protocol.MAX_HANDSHAKE_BODY];
        assertThrows(SocketTimeoutException.class, () -> {
            for (int i = 0; i < 100_000; i++) {
                fc.send(Protocol.CONNECT, b -> b.put(body), System.nanoTime() + SHORT);
            }
        }, "the socket buffers fill up long before 800 MB");
    }

    @Test
    void connectingToAClosedPortFailsWithAnIoError() throws Exception {
        InetSocketAddress closed = address;
        listener.close();
        raw.close();
        fc.close();
        assertThrows(IOException.class, () -> FrameChannel.connect(closed, soon()).close());
    }
}
