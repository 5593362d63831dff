package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;

/**
 * The multiplexed control I/O on loopback sockets: many channels on a fixed number of threads,
 * heartbeats and liveness per channel, a slow or silent peer breaking only its own channel, and
 * closing channels and the whole group.
 */
class ControlIoTest {
    private static final long HEARTBEAT = TimeUnit.MILLISECONDS.toNanos(40);
    private static final long LIVENESS = TimeUnit.MILLISECONDS.toNanos(1000);

    private ServerSocketChannel server;
    private ControlIo io;
    private final List<SocketChannel> peers = new ArrayList<>();
    private final List<ControlChannel> channels = new ArrayList<>();

    /** One channel and its wake-up counter. */
    private record End(ControlChannel channel, AtomicInteger wakes, SocketChannel peer) {
    }

    @BeforeEach
    void open() throws IOException {
        server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        io = new ControlIo("test", 2);
    }

    @AfterEach
    void close() throws IOException {
        for (ControlChannel c : channels) {
            c.close();
        }
        io.close(2000);
        for (SocketChannel p : peers) {
            p.close();
        }
        server.close();
    }

    private End end(long heartbeat, long liveness) throws IOException {
        SocketChannel peer = SocketChannel.open(server.getLocalAddress());
        SocketChannel mine = server.accept();
        peers.add(peer);
        AtomicInteger wakes = new AtomicInteger();
        ControlChannel c = new ControlChannel(io, "test-" + channels.size(), mine, ByteBuffer.allocate(0), wakes::incrementAndGet, heartbeat, liveness);
        channels.add(c);
        c.start();
        return new End(c, wakes, peer);
    }

    private static ByteBuffer frame(int type, int bodyBytes, byte fill) {
        ByteBuffer f = ByteBuffer.allocate(Protocol.HEADER_BYTES + bodyBytes);
        FrameHeader.write(f, type, bodyBytes);
        while (f.hasRemaining()) {
            f.put(fill);
        }
        return f.flip();
    }

    /** Reads exactly {@code n} bytes from a blocking peer socket. */
    private static ByteBuffer read(SocketChannel peer, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (peer.read(b) < 0) {
                throw new IOException("end of stream after " + b.position() + " of " + n);
            }
        }
        return b.flip();
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError(what + " within 10 s");
            }
            Thread.sleep(2);
        }
    }

    private static long ioThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("virtuoso-ctrl-io") && t.getName().endsWith("-test"))
                .count();
    }

    /** A selector that cannot be opened (out of descriptors) leaves none of the others open. */
    @Test
    void aSelectorThatCannotOpenClosesTheOnesOpenedBefore() {
        List<Selector> opened = new ArrayList<>();
        IOException e = assertThrows(IOException.class, () -> new ControlIo("fails", 3, () -> {
            if (opened.size() == 2) {
                throw new IOException("too many open files");
            }
            Selector sel = Selector.open();
            opened.add(sel);
            return sel;
        }));
        assertEquals("too many open files", e.getMessage());
        assertEquals(2, opened.size());
        for (Selector sel : opened) {
            assertFalse(sel.isOpen(), "selector closed");
        }
    }

    @Test
    void manyChannelsMoveFramesBothWaysOnTwoThreads() throws Exception {
        List<End> ends = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            ends.add(end(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(60)));
        }
        assertEquals(2, ioThreads(), "the number of I/O threads does not grow with the channels");
        for (int i = 0; i < ends.size(); i++) {
            assertTrue(ends.get(i).channel().offer(frame(Protocol.ADD_PATH, 100, (byte) i)));
            ends.get(i).channel().flush();
            ends.get(i).peer().write(frame(Protocol.ADD_PATH, 50, (byte) (i + 1)));
        }
        for (int i = 0; i < ends.size(); i++) {
            End e = ends.get(i);
            ByteBuffer got = read(e.peer(), Protocol.HEADER_BYTES + 100);
            assertEquals(Protocol.ADD_PATH, FrameHeader.type(got, 0));
            assertEquals((byte) i, got.get(Protocol.HEADER_BYTES + 99), "channel " + i + " got its own frame");
            await(() -> e.channel().inbound.readable() == Protocol.HEADER_BYTES + 50, "channel's bytes arrive");
            // the I/O thread appends the bytes, then wakes the engine: the wake may trail the bytes
            await(() -> e.wakes().get() > 0, "the engine is woken");
            ByteBuffer in = ByteBuffer.allocate(Protocol.HEADER_BYTES + 50);
            e.channel().inbound.peek(0, in, in.capacity());
            assertEquals((byte) (i + 1), in.get(Protocol.HEADER_BYTES + 49));
            assertEquals(ControlChannel.OPEN, e.channel().state());
        }
    }

    @Test
    void anIdleChannelSendsHeartbeatsAndASilentPeerBreaksOnlyItsOwnChannel() throws Exception {
        End silent = end(HEARTBEAT, LIVENESS);
        End talking = end(HEARTBEAT, LIVENESS);
        ByteBuffer ping = read(silent.peer(), Protocol.HEADER_BYTES);
        assertEquals(Protocol.PING, FrameHeader.type(ping, 0), "an idle channel sends a PING");
        long t0 = System.nanoTime();
        while (System.nanoTime() - t0 < 2 * LIVENESS) {
            talking.peer().write(frame(Protocol.PING, 0, (byte) 0));
            Thread.sleep(20);
        }
        assertEquals(ControlChannel.BROKEN, silent.channel().state());
        assertTrue(silent.channel().failure().startsWith("peer silent for"), silent.channel().failure());
        assertEquals(ControlChannel.OPEN, talking.channel().state(), "a peer that talks stays");
    }

    @Test
    void aPeerThatNeverReadsFillsOnlyItsOwnRing() throws Exception {
        End slow = end(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(60));
        End fast = end(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(60));
        ByteBuffer big = frame(Protocol.ADD_PATH, Protocol.MAX_CONTROL_BODY, (byte) 7);
        // the slow peer reads nothing: its socket buffers and then the ring fill up
        int offered = 0;
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long lastProgress = System.nanoTime();
        while (System.nanoTime() < end) {
            boolean progress = false;
            while (slow.channel().offer(big.duplicate())) {
                offered++;
                progress = true;
            }
            slow.channel().flush();
            long now = System.nanoTime();
            if (progress) {
                lastProgress = now;
            } else if (now - lastProgress > TimeUnit.MILLISECONDS.toNanos(200)) {
                break; // the I/O thread made no room for 200 ms: the socket buffers are full
            }
            Thread.sleep(1);
        }
        assertTrue(offered > 2, "frames went out before the ring filled: " + offered);
        assertTrue(slow.channel().outbound.free() < big.remaining(), "the slow peer's ring stays full");
        for (int i = 0; i < 50; i++) {
            assertTrue(fast.channel().offer(frame(Protocol.ADD_PATH, 1000, (byte) i)));
            fast.channel().flush();
            ByteBuffer got = read(fast.peer(), Protocol.HEADER_BYTES + 1000);
            assertEquals((byte) i, got.get(Protocol.HEADER_BYTES + 999), "the other channel keeps flowing");
        }
        assertEquals(ControlChannel.OPEN, slow.channel().state());
    }

    @Test
    void aPeerThatClosesIsSeenAndClosingAChannelReleasesIt() throws Exception {
        End gone = end(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(60));
        End closed = end(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(60));
        End stays = end(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(60));
        gone.peer().close();
        await(() -> gone.channel().state() == ControlChannel.PEER_CLOSED, "the peer's close is seen");
        await(() -> gone.wakes().get() > 0, "the engine is told"); // the state is set before the wake
        closed.channel().offer(frame(Protocol.ADD_PATH, 10, (byte) 3));
        closed.channel().close(TimeUnit.SECONDS.toNanos(5));
        ByteBuffer got = read(closed.peer(), Protocol.HEADER_BYTES + 10);
        assertEquals((byte) 3, got.get(Protocol.HEADER_BYTES + 9), "close drains what was offered");
        assertEquals(-1, closed.peer().read(ByteBuffer.allocate(1)), "then closes the socket");
        stays.peer().write(frame(Protocol.PING, 0, (byte) 0));
        await(() -> stays.channel().inbound.readable() == Protocol.HEADER_BYTES, "the third channel still reads");
        assertEquals(ControlChannel.OPEN, stays.channel().state());
    }

    @Test
    void closingTheGroupStopsItsThreadsAndBreaksWhatIsLeft() throws Exception {
        End left = end(TimeUnit.SECONDS.toNanos(30), TimeUnit.SECONDS.toNanos(60));
        await(() -> ioThreads() == 2, "threads started");
        long t0 = System.nanoTime();
        io.close(2000);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2), "stopped within its timeout");
        assertEquals(0, ioThreads(), "no I/O thread left");
        assertEquals(ControlChannel.BROKEN, left.channel().state());
        assertEquals("control I/O stopped", left.channel().failure());
    }
}
