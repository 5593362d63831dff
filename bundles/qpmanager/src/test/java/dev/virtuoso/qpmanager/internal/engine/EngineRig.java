package dev.virtuoso.qpmanager.internal.engine;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.decomposer.Decomposer;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.DecompositionConfig;
import dev.virtuoso.decomposer.DecompositionCounters;
import dev.virtuoso.decomposer.DecompositionWiring;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.reassembler.ReassemblyCounters;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * One {@link ConnectionEngine} whose duty cycles the test runs on its own thread: over scripted
 * verbs (a CQ that returns the completions the test queued), a scripted decomposition and
 * reassembly that record what the engine tells them and answer what the test set, and a control
 * channel on a stopped control I/O (so nothing moves its rings but the engine and the test).
 */
final class EngineRig implements AutoCloseable {
    static final long MR_ADDR = 0x40000;
    static final int MR_LKEY = 0x21;
    static final int MR_RKEY = 0x22;
    static final int MAX_RECEIVES = 8;

    final ConnectOptions options;
    /** Invokable, so a test can run its duty cycles as an application thread would. */
    final EngineAgent agent = new EngineAgent(0, 16, 0, true, t -> {
        throw new AssertionError("duty cycle failed", t);
    });
    final ControlIo io;
    final Setup setup;
    final ConnectionEngine engine;
    final MpConnection conn;
    final ControlChannel channel;
    final List<MpConnection> closed = new ArrayList<>();
    final SocketChannel socket;
    /** The connection's one path, established at set-up (its peer QP is 0x501). */
    final PathSlot path;
    boolean qpClosed;
    /** Run inside the CQ poll (as the I/O thread might act meanwhile), or {@code null}. */
    Runnable onPoll;
    /** Run when the reassembly is flushed, or {@code null}. */
    Runnable onFlush;
    /** The receive completion {@code deliver} reports (wrId, length), or {@code null}. */
    long[] deliverReceive;
    int ticks;
    boolean closeFails;

    // ---- the CQ
    final ArrayDeque<long[]> cqe = new ArrayDeque<>();
    VerbsException pollFails;
    VerbsException armFails;
    int arms;
    int polls;
    boolean cqClosed;
    int mrsClosed;

    // ---- the decomposition
    final List<String> calls = new ArrayList<>();
    final List<MessageSpec> submitted = new ArrayList<>();
    final List<Long> chunkCompletions = new ArrayList<>();
    final DecompositionCounters counters = new DecompositionCounters();
    DecompositionConfig config;
    DecompositionWiring wiring;
    boolean submitAccepts = true;
    int messages;
    int chunks;
    int scheduleWork;
    RuntimeException scheduleFails;

    // ---- the reassembly
    final List<String> reassemblyCalls = new ArrayList<>();
    final List<Long> slotCompletions = new ArrayList<>();
    final ArrayDeque<Object[]> reserve = new ArrayDeque<>();
    final ArrayDeque<PlacementNotice> notices = new ArrayDeque<>();
    final List<Long> reserved = new ArrayList<>();
    boolean noticesPending;
    int deliverWork;
    ReassemblyException reassemblyFails;

    EngineRig() throws Exception {
        this(ConnectOptions.builder().maxOutstanding(16).build());
    }

    EngineRig(ConnectOptions options) throws Exception {
        this(options, null);
    }

    /** @param monitor the connection's path monitor, or {@code null} */
    EngineRig(ConnectOptions options, dev.virtuoso.pathmonitor.api.PathMonitor monitor) throws Exception {
        this.options = options;
        io = new ControlIo("engine-test", 1);
        io.close(5000); // a stopped loop: the channel's requests stay queued, its state stays OPEN
        VerbsProvider provider = provider();
        setup = new Setup("c1", options, CoreSettings.DEFAULTS, provider, null, List.of(), agent, io, null);
        setup.res = VerbsResources.open(agent, provider, null, d -> 64);
        setup.probeSource = mr(null, 0x1000, 4096);
        setup.reassembly = reassembly();
        setup.client = true;
        agent.assign();
        path = new PathSlot(java.net.InetAddress.getByName("10.0.1.1"), java.net.InetAddress.getByName("10.0.2.1"), 0,
                qp(), 1, 64, setup.reassembly);
        path.remoteQpn = 0x501;
        setup.slots.add(path);
        Decomposer decomposer = (c, w) -> {
            config = c;
            wiring = w;
            return decomposition();
        };
        socket = SocketChannel.open();
        engine = new ConnectionEngine(setup, new ScratchRegion(0x90000, 0x77, 8192), socket,
                ByteBuffer.allocate(0), new InetSocketAddress("127.0.0.1", 7000), decomposer, new PolicyRegistry(),
                monitor, monitor == null ? null : (id, props, bytes) -> monitor, closed::add);
        conn = engine.connection();
        channel = engine.channel();
        // the connecting side's first cycle tells the peer its probes are over (it has no monitor)
        if (engine.duty() < 1) {
            throw new AssertionError("first cycle");
        }
        List<LinkRig.Frame> first = frames();
        if (first.size() != 1 || first.get(0).type() != Protocol.PROBES_DONE) {
            throw new AssertionError("first frames " + first);
        }
        calls.clear();
    }

    @Override
    public void close() {
        if (!engine.ended()) {
            engine.abort("test over");
        }
        channel.close();
    }

    // ---------------------------------------------------------------- the application's side

    MemoryRegion region(int bytes, Access... access) throws Exception {
        return conn.register(ByteBuffer.allocateDirect(bytes),
                access.length == 0 ? EnumSet.noneOf(Access.class) : EnumSet.of(access[0], access));
    }

    List<MpCompletion> completions() {
        List<MpCompletion> out = new ArrayList<>();
        MpCompletion[] one = {new MpCompletion()};
        while (conn.pollCompletions(one) == 1) {
            out.add(one[0]);
            one[0] = new MpCompletion();
        }
        return out;
    }

    MpCompletion onlyCompletion() {
        List<MpCompletion> c = completions();
        if (c.size() != 1) {
            throw new AssertionError("completions " + c);
        }
        return c.get(0);
    }

    // ---------------------------------------------------------------- the peer's side

    /** Queues a frame in the control channel's inbound ring. */
    void inbound(int type, byte... body) {
        ByteBuffer f = ByteBuffer.allocate(Protocol.HEADER_BYTES + body.length);
        FrameHeader.write(f, type, body.length);
        f.put(body).flip();
        if (!channel.inbound.write(f)) {
            throw new AssertionError("inbound ring full");
        }
    }

    /** @return the frames the engine wrote (type and body), consumed */
    List<LinkRig.Frame> frames() throws Exception {
        List<LinkRig.Frame> out = new ArrayList<>();
        while (channel.outbound.readable() > 0) {
            ByteBuffer h = ByteBuffer.allocate(Protocol.HEADER_BYTES);
            channel.outbound.peek(0, h, Protocol.HEADER_BYTES);
            int body = FrameHeader.check(h, 0, Protocol.MAX_CONTROL_BODY);
            ByteBuffer b = ByteBuffer.allocate(body);
            channel.outbound.peek(Protocol.HEADER_BYTES, b, body);
            out.add(new LinkRig.Frame(FrameHeader.type(h, 0), b.flip()));
            channel.outbound.commitRead(Protocol.HEADER_BYTES + body);
        }
        return out;
    }

    /** Queues a completion on the CQ. */
    void cqe(long wrId) {
        cqe.add(new long[] {wrId});
    }

    // ---------------------------------------------------------------- scripted parts

    /** A second engine over this rig's set-up, built with {@code decomposer} (construction may fail). */
    ConnectionEngine another(Decomposer decomposer, SocketChannel socket) throws Exception {
        return new ConnectionEngine(setup, new ScratchRegion(0x90000, 0x77, 8192), socket, ByteBuffer.allocate(0),
                new InetSocketAddress("127.0.0.1", 7000), decomposer, new PolicyRegistry(), null, null, closed::add);
    }

    private dev.virtuoso.spi.verbs.IbvQp qp() {
        return (dev.virtuoso.spi.verbs.IbvQp) Proxy.newProxyInstance(dev.virtuoso.spi.verbs.IbvQp.class.getClassLoader(),
                new Class<?>[] {dev.virtuoso.spi.verbs.IbvQp.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "qpNum" -> 0x301;
                    case "modifyQp" -> null;
                    case "close" -> {
                        qpClosed = true;
                        yield null;
                    }
                    case "counters" -> (dev.virtuoso.spi.verbs.VerbsCounters) Proxy.newProxyInstance(
                            dev.virtuoso.spi.verbs.VerbsCounters.class.getClassLoader(),
                            new Class<?>[] {dev.virtuoso.spi.verbs.VerbsCounters.class}, (p2, m2, a2) -> 3L);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "qp 0x301";
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    private static Object zero(Method m) {
        Class<?> t = m.getReturnType();
        if (t == int.class) {
            return 0;
        }
        if (t == long.class) {
            return 0L;
        }
        if (t == boolean.class) {
            return false;
        }
        return null;
    }

    private Decomposition decomposition() {
        return (Decomposition) Proxy.newProxyInstance(Decomposition.class.getClassLoader(),
                new Class<?>[] {Decomposition.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "submit" -> {
                        MessageSpec s = (MessageSpec) args[0];
                        submitted.add(new MessageSpec().set(s.wrId(), s.opcode(), s.chunkOpcode(), s.localAddr(),
                                s.lkey(), s.length(), s.remoteAddr(), s.rkey(), s.immData(), s.split()).tag(s.tag()));
                        yield submitAccepts;
                    }
                    case "onCompletion" -> {
                        chunkCompletions.add(((IbvWc) args[0]).wrId());
                        yield null;
                    }
                    case "schedule" -> {
                        if (scheduleFails != null) {
                            throw scheduleFails;
                        }
                        yield scheduleWork;
                    }
                    case "messagesInProgress" -> messages;
                    case "chunksInFlight" -> chunks;
                    case "counters" -> counters;
                    case "tick" -> {
                        ticks++;
                        yield null;
                    }
                    case "close" -> {
                        calls.add("close");
                        if (closeFails) {
                            throw new IllegalStateException("scripted close failure");
                        }
                        yield null;
                    }
                    case "messagesAwaitingFence", "maxChunkBytes", "maxOutstandingChunks" -> zero(m);
                    case "toString" -> "scripted decomposition";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> {
                        calls.add(m.getName() + (args == null ? "" : " " + java.util.Arrays.asList(args)));
                        yield zero(m);
                    }
                });
    }

    private Reassembly reassembly() {
        return (Reassembly) Proxy.newProxyInstance(Reassembly.class.getClassLoader(), new Class<?>[] {Reassembly.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "config" -> new ReassemblyConfig("c1", MAX_RECEIVES, 4, 64, 1024, WrIdTags.SLOT);
                    case "counters" -> new ReassemblyCounters();
                    case "onCompletion" -> {
                        if (reassemblyFails != null) {
                            throw reassemblyFails;
                        }
                        slotCompletions.add(((IbvWc) args[0]).wrId());
                        yield null;
                    }
                    case "reserveSend" -> {
                        reserved.add((Long) args[0]);
                        Object[] r = reserve.poll();
                        if (r == null) {
                            yield Reassembly.NOT_READY;
                        }
                        if (r.length > 1) {
                            ((SendTarget) args[1]).set((long) r[1], (int) r[2], (long) r[3], (int) r[4],
                                    (boolean) r[5]);
                        }
                        yield r[0];
                    }
                    case "nextNotice" -> {
                        PlacementNotice n = notices.poll();
                        if (n == null) {
                            yield false;
                        }
                        ((PlacementNotice) args[0]).set(n.slot(), n.localAddr(), n.lkey(), n.length(), n.immData(),
                                n.sequence());
                        yield true;
                    }
                    case "noticesPending" -> noticesPending;
                    case "deliver" -> {
                        if (deliverReceive != null) {
                            ((dev.virtuoso.reassembler.ReceiveCompletionSink) args[0]).onReceiveComplete(
                                    deliverReceive[0], dev.virtuoso.api.MpStatus.SUCCESS, deliverReceive[1], 2, "recv");
                            deliverReceive = null;
                        }
                        yield deliverWork;
                    }
                    case "flush" -> {
                        reassemblyCalls.add("flush " + args[1]);
                        if (onFlush != null) {
                            onFlush.run();
                        }
                        yield 0;
                    }
                    case "receivesInProgress" -> 0;
                    case "toString" -> "scripted reassembly";
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> {
                        reassemblyCalls.add(m.getName() + (args == null ? "" : " " + describe(args)));
                        yield zero(m);
                    }
                });
    }

    private static String describe(Object[] args) {
        StringBuilder b = new StringBuilder();
        for (Object a : args) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(a instanceof ByteBuffer ? "buffer" : String.valueOf(a));
        }
        return b.toString();
    }

    IbvMr mr(ByteBuffer buffer, long address, int length) {
        return (IbvMr) Proxy.newProxyInstance(IbvMr.class.getClassLoader(), new Class<?>[] {IbvMr.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "address" -> address;
                    case "length" -> length;
                    case "lkey" -> MR_LKEY;
                    case "rkey" -> MR_RKEY;
                    case "buffer" -> buffer == null ? null : buffer.duplicate().clear();
                    case "close" -> {
                        mrsClosed++;
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> "mr";
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    private VerbsProvider provider() {
        IbvPd pd = (IbvPd) Proxy.newProxyInstance(IbvPd.class.getClassLoader(), new Class<?>[] {IbvPd.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "regMr" -> {
                        ByteBuffer b = (ByteBuffer) args[0];
                        yield mr(b, MR_ADDR, b.remaining());
                    }
                    case "close" -> null;
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        IbvCq cq = (IbvCq) Proxy.newProxyInstance(IbvCq.class.getClassLoader(), new Class<?>[] {IbvCq.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "pollCq" -> {
                        polls++;
                        if (pollFails != null) {
                            throw pollFails;
                        }
                        if (onPoll != null) {
                            Runnable r = onPoll;
                            onPoll = null;
                            r.run();
                        }
                        IbvWc[] wcs = (IbvWc[]) args[0];
                        int n = 0;
                        while (n < (int) args[1] && !cqe.isEmpty()) {
                            wcs[n++].set(cqe.poll()[0], IbvWcStatus.SUCCESS, IbvWcOpcode.RDMA_WRITE, 0, 0, 0, 0x100, 0,
                                    0);
                        }
                        yield n;
                    }
                    case "reqNotifyCq" -> {
                        arms++;
                        if (armFails != null) {
                            throw armFails;
                        }
                        yield null;
                    }
                    case "close" -> {
                        cqClosed = true;
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        CountDownLatch channelClosed = new CountDownLatch(1);
        IbvCompChannel channel = (IbvCompChannel) Proxy.newProxyInstance(IbvCompChannel.class.getClassLoader(),
                new Class<?>[] {IbvCompChannel.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "getCqEvent" -> {
                        channelClosed.await((long) args[0], (TimeUnit) args[1]);
                        yield null;
                    }
                    case "close" -> {
                        channelClosed.countDown();
                        yield null;
                    }
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        IbvContext context = (IbvContext) Proxy.newProxyInstance(IbvContext.class.getClassLoader(),
                new Class<?>[] {IbvContext.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "vnics" -> List.of();
                    case "udpPort" -> 4791;
                    case "deviceName" -> "scripted";
                    case "queryDevice" -> new IbvDeviceAttr();
                    case "allocPd" -> pd;
                    case "createCompChannel" -> channel;
                    case "createCq" -> cq;
                    case "close" -> null;
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        return (VerbsProvider) Proxy.newProxyInstance(VerbsProvider.class.getClassLoader(),
                new Class<?>[] {VerbsProvider.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "name" -> "scripted";
                    case "openDevice" -> context;
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }
}
