package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The fixture of the {@link PathMonitorLink} tests: a scripted monitor, a real path table and path
 * manager over QPs that record their posts, a decomposition that records what it is told, and a
 * control writer over an unstarted control channel whose outbound ring the test reads.
 */
final class LinkRig implements AutoCloseable {
    static final int SCRATCH = 4096;
    static final int PEER_SCRATCH = 8192;
    static final long SCRATCH_ADDR = 0x1000;
    static final int LKEY = 0x11;
    static final long PEER_ADDR = 0x90000;
    static final int RKEY = 0x77;

    final PathTable table = new PathTable(8);
    final List<String> decomposition = new ArrayList<>();
    final Decomposition decomp = (Decomposition) Proxy.newProxyInstance(
            Decomposition.class.getClassLoader(), new Class<?>[] {Decomposition.class}, (proxy, m, args) -> {
                switch (m.getName()) {
                    case "pathsChanged" -> decomposition.add("pathsChanged");
                    case "abandonPath", "pathFenced" -> {
                        decomposition.add(m.getName() + " " + args[0]);
                        return 0;
                    }
                    case "policyView" -> decomposition.add("policyView " + (args[0] == table ? "table" : args[0]));
                    case "loadBalancer", "congestionAvoidance" -> decomposition.add(m.getName() + " " + args[0]);
                    case "maxChunkBytes" -> {
                        return 1000L + (int) args[0];
                    }
                    case "maxOutstandingChunks" -> {
                        return 3 + (int) args[0];
                    }
                    default -> throw new AssertionError("unexpected " + m.getName());
                }
                return null;
            });
    final List<IbvSendWr> posted = new ArrayList<>();
    /** errno the QPs' postSend fails with, 0: none. */
    int postErrno;
    int scratchClosed;
    final ControlWriter writer = new ControlWriter();
    final ScriptedMonitor monitor = new ScriptedMonitor();
    final PathMonitorFactory factory = (id, props, bytes) -> monitor;
    PathManager paths;
    /** The probe results the next {@link #link} shares, or {@code null}. */
    SharedCapacities.Scope shared;
    ControlIo io;
    ControlChannel channel;
    SocketChannel socket;

    LinkRig() throws Exception {
        paths = new PathManager(null, null, table, writer, null, null, List.of(), true);
        paths.decomposition(decomp);
        io = new ControlIo("link-test", 1);
        socket = SocketChannel.open();
        channel = new ControlChannel(io, "link-test", socket, ByteBuffer.allocate(0), () -> { }, 1_000_000_000L,
                10_000_000_000L);
        writer.attach(channel);
    }

    @Override
    public void close() throws Exception {
        channel.close();
        io.close(2000);
        socket.close();
    }

    IbvQp qp() {
        return (IbvQp) Proxy.newProxyInstance(IbvQp.class.getClassLoader(), new Class<?>[] {IbvQp.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "postSend" -> {
                        if (postErrno != 0) {
                            throw new VerbsException(postErrno, "scripted");
                        }
                        IbvSendWr w = (IbvSendWr) args[0];
                        IbvSendWr copy = new IbvSendWr(1).wrId(w.wrId()).opcode(w.opcode()).remoteAddr(w.remoteAddr())
                                .rkey(w.rkey()).numSge(w.numSge());
                        copy.sge(0).set(w.sge(0).addr(), w.sge(0).length(), w.sge(0).lkey());
                        posted.add(copy);
                        yield null;
                    }
                    case "qpNum" -> 0x100;
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    IbvMr scratch() {
        return (IbvMr) Proxy.newProxyInstance(IbvMr.class.getClassLoader(), new Class<?>[] {IbvMr.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "address" -> SCRATCH_ADDR;
                    case "length" -> SCRATCH;
                    case "lkey" -> LKEY;
                    case "close" -> {
                        scratchClosed++;
                        yield null;
                    }
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    /** A link over {@code monitor} (or none) with {@code n} paths added through the path manager. */
    PathMonitorLink link(boolean withMonitor, boolean connecting, int n) throws Exception {
        PathMonitorLink l = new PathMonitorLink("c1", table, paths, scratch(), new ScratchRegion(PEER_ADDR, RKEY,
                PEER_SCRATCH), withMonitor ? monitor : null, withMonitor ? factory : null, writer, connecting,
                shared);
        PolicyBinder binder = new PolicyBinder(new PolicyRegistry(), dev.virtuoso.api.ConnectOptions.builder().build(),
                "c1", decomp, l.view());
        binder.start();
        l.attach(decomp, binder);
        paths.events(l);
        for (int i = 0; i < n; i++) {
            paths.addEstablished(new PathSlot(InetAddress.getByName("10.0.1." + (i + 1)),
                    InetAddress.getByName("10.0.2." + (i + 1)), 0, qp(), 1, 64, null));
        }
        decomposition.clear();
        monitor.events.clear();
        return l;
    }

    static IbvWc wc(long wrId, IbvWcStatus status) {
        return new IbvWc().set(wrId, status, IbvWcOpcode.RDMA_WRITE, 0, 0, 0, 0x100, 0, 0);
    }

    /** @return the frame types in the control channel's outbound ring, consumed */
    List<Integer> framesWritten() throws Exception {
        List<Integer> types = new ArrayList<>();
        for (Frame f : frames()) {
            types.add(f.type());
        }
        return types;
    }

    /** A control frame the code under test wrote: its type and body (flipped). */
    record Frame(int type, ByteBuffer body) {
    }

    /** @return the frames in the control channel's outbound ring, with their bodies, consumed */
    List<Frame> frames() throws Exception {
        List<Frame> out = new ArrayList<>();
        while (channel.outbound.readable() > 0) {
            ByteBuffer h = ByteBuffer.allocate(Protocol.HEADER_BYTES);
            channel.outbound.peek(0, h, Protocol.HEADER_BYTES);
            int body = FrameHeader.check(h, 0, Protocol.MAX_CONTROL_BODY);
            ByteBuffer b = ByteBuffer.allocate(body);
            channel.outbound.peek(Protocol.HEADER_BYTES, b, body);
            out.add(new Frame(FrameHeader.type(h, 0), b.flip()));
            channel.outbound.commitRead(Protocol.HEADER_BYTES + body);
        }
        return out;
    }

    /** Leaves less than a claim's minimum in the outbound ring. */
    int fillRing() {
        int n = channel.outbound.free() - (Protocol.HEADER_BYTES + ControlWriter.MIN_BODY_BYTES) + 1;
        assertTrue(channel.outbound.write(ByteBuffer.allocate(n)));
        return n;
    }

    static PathStats stats(int id) throws Exception {
        return new PathStats(id, InetAddress.getByName("10.0.1.1"), InetAddress.getByName("10.0.2.1"), PathState.UP,
                1, 2, 3, 4, 5, 6, 7, 99);
    }
}
