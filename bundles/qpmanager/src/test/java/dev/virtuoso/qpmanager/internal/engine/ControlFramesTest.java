package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;

/**
 * {@link ControlReader} over a ring the test fills, and {@link ControlWriter} into the outbound
 * ring of a {@link ControlChannel} that is never started (no I/O thread touches it): frames are
 * checked byte by byte, on the test's thread.
 */
class ControlFramesTest {
    private ServerSocketChannel server;
    private SocketChannel peer;
    private ControlIo io;

    @BeforeEach
    void open() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        io = new ControlIo("frames", 1);
    }

    @AfterEach
    void close() throws IOException {
        io.close(2000);
        if (peer != null) {
            peer.close();
        }
        server.close();
    }

    private ControlChannel channel(ByteBuffer leftover) throws IOException {
        peer = SocketChannel.open(server.getLocalAddress());
        return new ControlChannel(io, "frames", server.accept(), leftover, () -> { }, 1_000_000_000L, 5_000_000_000L);
    }

    private static ByteBuffer frame(int type, int body, int fill) {
        ByteBuffer f = ByteBuffer.allocate(Protocol.HEADER_BYTES + body);
        FrameHeader.write(f, type, body);
        for (int i = 0; i < body; i++) {
            f.put((byte) (fill + i));
        }
        return f.flip();
    }

    @Test
    void readerReturnsNothingUntilTheHeaderAndTheBodyAreComplete() throws Exception {
        ByteRing ring = new ByteRing(1 << 16);
        ControlReader r = new ControlReader();
        ByteBuffer f = frame(Protocol.PING + 3, 5, 1);
        ByteBuffer part = f.duplicate().limit(Protocol.HEADER_BYTES - 1);
        ring.write(part);
        assertEquals(-1, r.next(ring), "11 header bytes are not a frame");
        assertEquals(Protocol.HEADER_BYTES - 1, ring.readable());
        ring.write(f.duplicate().position(Protocol.HEADER_BYTES - 1).limit(Protocol.HEADER_BYTES + 4));
        assertEquals(-1, r.next(ring), "a body missing one byte is not a frame");
        assertEquals(Protocol.HEADER_BYTES + 4, ring.readable(), "nothing is consumed before the frame is whole");
        ring.write(f.duplicate().position(Protocol.HEADER_BYTES + 4));
        assertEquals(Protocol.PING + 3, r.next(ring));
        ByteBuffer b = r.body();
        assertEquals(0, b.position());
        assertEquals(5, b.remaining());
        for (int i = 0; i < 5; i++) {
            assertEquals(1 + i, b.get(i));
        }
        assertEquals(0, ring.readable(), "the whole frame is consumed");
        assertEquals(-1, r.next(ring));
    }

    @Test
    void readerReadsAHeaderOnlyFrameAndFramesBackToBack() throws Exception {
        ByteRing ring = new ByteRing(1 << 16);
        ControlReader r = new ControlReader();
        ring.write(frame(Protocol.PING, 0, 0));
        ring.write(frame(Protocol.DISCONNECT, 3, 7));
        assertEquals(Protocol.PING, r.next(ring));
        assertEquals(0, r.body().remaining());
        assertEquals(Protocol.HEADER_BYTES + 3, ring.readable());
        assertEquals(Protocol.DISCONNECT, r.next(ring));
        assertEquals(3, r.body().remaining());
        assertEquals(9, r.body().get(2));
    }

    @Test
    void readerGrowsItsBodyToThePowerOfTwoAboveTheLargestFrameUpToTheProtocolLimit() throws Exception {
        ByteRing ring = new ByteRing(1 << 18);
        ControlReader r = new ControlReader();
        ring.write(frame(Protocol.ADD_PATH, ControlReader.INITIAL_BODY_BYTES, 3));
        assertEquals(Protocol.ADD_PATH, r.next(ring));
        assertEquals(ControlReader.INITIAL_BODY_BYTES, r.body().capacity(), "a frame that fits needs no new buffer");
        assertEquals(ControlReader.INITIAL_BODY_BYTES, r.body().remaining());
        ring.write(frame(Protocol.ADD_PATH, ControlReader.INITIAL_BODY_BYTES + 1, 4));
        assertEquals(Protocol.ADD_PATH, r.next(ring));
        assertEquals(2 * ControlReader.INITIAL_BODY_BYTES, r.body().capacity());
        assertEquals(ControlReader.INITIAL_BODY_BYTES + 1, r.body().remaining());
        assertEquals((byte) (4 + ControlReader.INITIAL_BODY_BYTES), r.body().get(ControlReader.INITIAL_BODY_BYTES));
        ring.write(frame(Protocol.ADD_PATH, 3 * ControlReader.INITIAL_BODY_BYTES, 5));
        assertEquals(Protocol.ADD_PATH, r.next(ring));
        assertEquals(4 * ControlReader.INITIAL_BODY_BYTES, r.body().capacity());
        ring.write(frame(Protocol.ADD_PATH, Protocol.MAX_CONTROL_BODY, 6));
        assertEquals(Protocol.ADD_PATH, r.next(ring));
        assertEquals(Protocol.MAX_CONTROL_BODY, r.body().capacity());
        assertEquals(Protocol.MAX_CONTROL_BODY, r.body().remaining());
        ring.write(frame(Protocol.PING, 2, 0));
        assertEquals(Protocol.PING, r.next(ring));
        assertEquals(Protocol.MAX_CONTROL_BODY, r.body().capacity(), "a small frame keeps the grown buffer");
        assertEquals(2, r.body().remaining());
    }

    @Test
    void readerRejectsABadHeaderAndABodyOverTheControlLimit() {
        ByteRing ring = new ByteRing(1 << 16);
        ByteBuffer f = frame(Protocol.PING, 0, 0);
        f.putInt(0, 0x12345678);
        ring.write(f);
        assertThrows(ProtocolException.class, () -> new ControlReader().next(ring));
        ByteRing big = new ByteRing(1 << 16);
        ByteBuffer h = ByteBuffer.allocate(Protocol.HEADER_BYTES);
        FrameHeader.write(h, Protocol.ADD_PATH, Protocol.MAX_CONTROL_BODY + 1);
        big.write(h.flip());
        assertThrows(ProtocolException.class, () -> new ControlReader().next(big));
    }

    @Test
    void writerWithoutAChannelClaimsNothing() {
        ControlWriter w = new ControlWriter();
        assertNull(w.claim());
        assertFalse(w.takeRefused(), "no channel is not a full ring");
        assertFalse(w.takeWrote());
    }

    @Test
    void writerFramesAClaimedBodyIntoTheOutboundRing() throws Exception {
        ControlChannel c = channel(ByteBuffer.allocate(0));
        ControlWriter w = new ControlWriter();
        w.attach(c);
        ByteBuffer b = w.claim();
        assertNotNull(b);
        assertEquals(0, b.position());
        assertEquals(ControlWriter.BODY_BYTES, b.limit(), "an empty ring offers a whole body");
        b.put((byte) 1).put((byte) 2).put((byte) 3);
        w.commit(Protocol.ADD_PATH, b);
        assertTrue(w.takeWrote());
        assertFalse(w.takeWrote(), "taken once");
        assertEquals(Protocol.HEADER_BYTES + 3, c.outbound.readable());
        ByteBuffer out = ByteBuffer.allocate(Protocol.HEADER_BYTES + 3);
        c.outbound.peek(0, out, Protocol.HEADER_BYTES + 3);
        assertEquals(3, FrameHeader.check(out, 0, Protocol.MAX_CONTROL_BODY));
        assertEquals(Protocol.ADD_PATH, FrameHeader.type(out, 0));
        assertEquals(1, out.get(12));
        assertEquals(3, out.get(14));
        ByteBuffer again = w.claim();
        assertSame(b, again, "the same preallocated body");
        assertEquals(0, again.position(), "cleared for the next frame");
        again.put((byte) 9);
        w.commit(Protocol.PATH_READY, again);
        ByteBuffer second = ByteBuffer.allocate(Protocol.HEADER_BYTES + 1);
        c.outbound.peek(Protocol.HEADER_BYTES + 3, second, Protocol.HEADER_BYTES + 1);
        assertEquals(1, FrameHeader.check(second, 0, Protocol.MAX_CONTROL_BODY));
        assertEquals(Protocol.PATH_READY, FrameHeader.type(second, 0));
        assertEquals(9, second.get(12));
        c.close();
    }

    @Test
    void writerClaimsWhatIsLeftAndRefusesBelowTheMinimumBody() throws Exception {
        ControlChannel c = channel(ByteBuffer.allocate(0));
        ControlWriter w = new ControlWriter();
        w.attach(c);
        int fill = c.outbound.free() - (Protocol.HEADER_BYTES + ControlWriter.MIN_BODY_BYTES + 100);
        assertTrue(c.offer(ByteBuffer.allocate(fill)));
        ByteBuffer b = w.claim();
        assertNotNull(b);
        assertEquals(ControlWriter.MIN_BODY_BYTES + 100, b.limit(), "the body fits the ring's free room with its header");
        assertFalse(w.takeRefused());
        assertTrue(c.offer(ByteBuffer.allocate(100)));
        ByteBuffer exact = w.claim();
        assertNotNull(exact, "exactly the minimum body still fits");
        assertEquals(ControlWriter.MIN_BODY_BYTES, exact.limit());
        assertTrue(c.offer(ByteBuffer.allocate(1)));
        assertNull(w.claim(), "one byte short of the minimum body");
        assertTrue(w.takeRefused());
        assertFalse(w.takeRefused(), "taken once");
        c.close();
    }

    @Test
    void writerFailsLoudlyWhenTheClaimedRoomIsGone() throws Exception {
        ControlChannel c = channel(ByteBuffer.allocate(0));
        ControlWriter w = new ControlWriter();
        w.attach(c);
        ByteBuffer b = w.claim();
        b.put(new byte[ControlWriter.MIN_BODY_BYTES]);
        assertTrue(c.offer(ByteBuffer.allocate(c.outbound.free() - 10)));
        assertThrows(IllegalStateException.class, () -> w.commit(Protocol.ADD_PATH, b));
        assertFalse(w.takeWrote());
        c.close();
    }

    @Test
    void writerClaimsNothingOnceTheChannelIsNoLongerOpen() throws Exception {
        ControlChannel c = channel(ByteBuffer.allocate(0));
        ControlWriter w = new ControlWriter();
        w.attach(c);
        c.loopStopped();
        assertEquals(ControlChannel.BROKEN, c.state());
        assertEquals("control I/O stopped", c.failure());
        assertNull(w.claim());
        assertFalse(w.takeRefused(), "a broken channel is not a full ring");
        c.close();
    }

    @Test
    void channelFeedsTheHandshakeLeftoverToTheEngineFirst() throws Exception {
        ByteBuffer leftover = frame(Protocol.PING, 2, 4);
        ControlChannel c = channel(leftover);
        assertEquals(Protocol.HEADER_BYTES + 2, c.inbound.readable());
        ControlReader r = new ControlReader();
        assertEquals(Protocol.PING, r.next(c.inbound));
        assertEquals(5, r.body().get(1));
        assertEquals(ControlChannel.OPEN, c.state());
        assertNull(c.failure());
        assertEquals(1_000_000_000L, c.heartbeatNanos());
        c.close();
    }

    @Test
    void channelRefusesALeftoverLargerThanItsRing() throws Exception {
        ByteBuffer leftover = ByteBuffer.allocate(ControlChannel.RING_BYTES + 1);
        peer = SocketChannel.open(server.getLocalAddress());
        SocketChannel mine = server.accept();
        IOException e = assertThrows(IOException.class,
                () -> new ControlChannel(io, "frames", mine, leftover, () -> { }, 1, 1));
        assertTrue(e.getMessage().contains(String.valueOf(ControlChannel.RING_BYTES + 1)), e.getMessage());
        mine.close();
    }

    @Test
    void offerRefusesAFrameTheRingCannotHold() throws Exception {
        ControlChannel c = channel(ByteBuffer.allocate(0));
        assertTrue(c.offer(ByteBuffer.allocate(ControlChannel.OUTBOUND_RING_BYTES)));
        assertFalse(c.offer(ByteBuffer.allocate(1)));
        c.close();
    }

    @Test
    void closingWithADrainTimeSendsWhatWasOfferedBeforeTheSocketCloses() throws Exception {
        ControlChannel c = channel(ByteBuffer.allocate(0));
        c.start();
        ByteBuffer f = frame(Protocol.DISCONNECT, 3000, 1);
        assertTrue(c.offer(f.duplicate()));
        c.close(java.util.concurrent.TimeUnit.SECONDS.toNanos(10));
        ByteBuffer got = ByteBuffer.allocate(f.remaining() + 1);
        peer.socket().setSoTimeout(5000);
        java.io.InputStream in = peer.socket().getInputStream();
        int n;
        while ((n = in.read(got.array(), got.position(), got.remaining())) > 0) {
            got.position(got.position() + n);
        }
        assertEquals(-1, n, "then the socket is closed");
        got.flip();
        assertEquals(f, got, "the whole frame arrived");
        assertEquals(ControlChannel.OPEN, c.state(), "closing is not a failure");
    }
}
