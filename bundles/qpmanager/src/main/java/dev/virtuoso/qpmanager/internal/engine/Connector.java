package dev.virtuoso.qpmanager.internal.engine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.decomposer.Decomposer;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.pathmonitor.api.PathMonitor;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameChannel;
import dev.virtuoso.qpmanager.internal.bootstrap.Handshake;
import dev.virtuoso.qpmanager.internal.bootstrap.PeerLimits;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.reassembler.Reassembler;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * {@code MP_rdma_connect} and its listening side, usable with plain constructors outside OSGi. It
 * tracks every connection and listener it creates and closes them in {@link #close()}.
 *
 * <p>With a {@link PathMonitorFactory} set ({@link #pathMonitors}), each new connection gets its own
 * path monitor as the policies' view; without one, connections use the core's {@link PathTable}.
 * The monitors' probe results are shared between the connections per path pair
 * ({@link SharedCapacities}, owned by this connector).
 */
public final class Connector implements MultipathConnector, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Connector.class.getName());
    /** Told about connections coming and going (e.g. to publish them as services). */
    public interface Observer {
        void established(MultipathConnection c);

        void closed(MultipathConnection c);
    }

    /** Longest wait for each control I/O thread to stop in {@link #close()}. */
    static final long CONTROL_IO_STOP_MILLIS = 2000;
    /** How long {@link #close()} waits for all its connections' teardowns together. */
    static final long CLOSE_WAIT_MILLIS = 5000;

    private final Function<String, VerbsProvider> providers;
    private final Decomposer decomposer;
    private final Reassembler reassembler;
    private final PolicyRegistry registry;
    private final String idPrefix;
    private final EngineGroup engines;
    /** Runs every connection's control channel on a fixed number of threads; owned by this connector. */
    private final ControlIo controlIo;
    /** Probe results per path pair, shared by this connector's connections; cleared on close. */
    private final SharedCapacities capacities = new SharedCapacities();
    private final boolean ownsEngines;
    private final AtomicLong nextId = new AtomicLong();
    private final Map<MpConnection, VerbsProvider> connections = new ConcurrentHashMap<>();
    private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
    private volatile CoreSettings settings;
    private volatile BootstrapLimits bootstrap = BootstrapLimits.DEFAULTS;
    private volatile Observer observer;
    private volatile PathMonitorFactory monitors;
    private volatile boolean closed;
    /** Signalled by {@link #providerAdded()} and {@link #close()}; guards {@link #providerGeneration}. */
    private final Object providerChange = new Object();
    private long providerGeneration;
    /** Connection set-ups that took the monitor factory and have not ended; guarded by {@code this}. */
    private int monitorSetups;
    /** Providers unbound and not bound again (few: one per unbind in a connector's life). */
    private final Set<VerbsProvider> goneProviders = ConcurrentHashMap.newKeySet();

    /**
     * @param providers verbs provider by name; a {@code null} name (neither the options nor the settings name
     *     one) asks for the preferred provider
     * @param decomposer the decomposer service
     * @param reassembler the reassembler service
     * @param registry bound policies
     * @param settings connector-wide settings
     */
    public Connector(Function<String, VerbsProvider> providers, Decomposer decomposer, Reassembler reassembler,
            PolicyRegistry registry, CoreSettings settings) {
        this(providers, decomposer, reassembler, registry, settings, new EngineGroup(EngineGroup.defaultSize()), true,
                0);
    }

    /**
     * A connector whose connections are served by {@code engines}, which its caller owns (and stops
     * after closing this connector).
     */
    public Connector(Function<String, VerbsProvider> providers, Decomposer decomposer, Reassembler reassembler,
            PolicyRegistry registry, CoreSettings settings, EngineGroup engines) {
        this(providers, decomposer, reassembler, registry, settings, engines, false, 0);
    }

    /**
     * As {@link #Connector(Function, Decomposer, Reassembler, PolicyRegistry, CoreSettings, EngineGroup)},
     * with {@code controlThreads} threads running the control channels of all connections (0: one
     * per 8 processors, 1..4); this connector owns and stops them.
     */
    public Connector(Function<String, VerbsProvider> providers, Decomposer decomposer, Reassembler reassembler,
            PolicyRegistry registry, CoreSettings settings, EngineGroup engines, int controlThreads) {
        this(providers, decomposer, reassembler, registry, settings, engines, false, controlThreads);
    }

    private Connector(Function<String, VerbsProvider> providers, Decomposer decomposer, Reassembler reassembler,
            PolicyRegistry registry, CoreSettings settings, EngineGroup engines, boolean ownsEngines,
            int controlThreads) {
        this.engines = engines;
        this.ownsEngines = ownsEngines;
        this.providers = providers;
        this.decomposer = decomposer;
        this.reassembler = reassembler;
        this.registry = registry;
        this.settings = settings;
        this.idPrefix = Integer.toHexString(new SecureRandom().nextInt() & 0x7FFF_FFFF);
        try {
            this.controlIo = new ControlIo(idPrefix, controlThreads > 0 ? controlThreads : ControlIo.defaultThreads());
        } catch (IOException e) {
            if (ownsEngines) {
                engines.close();
            }
            throw new IllegalStateException("cannot open the control I/O selectors: " + e.getMessage(), e);
        }
    }

    /** @return threads running the control channels */
    int controlThreads() {
        return controlIo.threads();
    }

    public void settings(CoreSettings s) {
        settings = s;
    }

    /** Sets the bootstrap limits of listeners opened and connections attempted from now on. */
    public void bootstrapLimits(BootstrapLimits limits) {
        bootstrap = limits;
    }

    public void observer(Observer o) {
        observer = o;
    }

    /**
     * Sets the path monitor factory used by connections established from now on.
     *
     * @param factory the factory, or {@code null} for none
     */
    public synchronized void pathMonitors(PathMonitorFactory factory) {
        monitors = factory;
    }

    /**
     * The factory is going away: new connections get no monitor, and every connection using one of
     * its monitors moves back to the core's view at its next duty cycle. Waits until they all did
     * (so that no monitor code runs after this returns) or the timeout passed.
     *
     * @param factory the factory being unbound
     * @param timeoutMillis longest wait for all connections together
     * @return connections that had not detached within the timeout (0 normally)
     */
    public int pathMonitorsGone(PathMonitorFactory factory, long timeoutMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        synchronized (this) {
            if (monitors == factory) {
                monitors = null;
            }
            // set-ups that took a factory before: listed (or failed) once they end, then awaited below
            try {
                long left;
                while (monitorSetups > 0 && (left = deadline - System.nanoTime()) > 0) {
                    TimeUnit.NANOSECONDS.timedWait(this, left);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<PathMonitorLink> waiting = new ArrayList<>();
        for (MpConnection c : connections.keySet()) {
            PathMonitorLink l = c.engine().monitor();
            if (l.requestDetach(factory)) {
                waiting.add(l);
                c.engine().wakeAlways();
            }
        }
        int late = 0;
        for (PathMonitorLink l : waiting) {
            try {
                if (!l.awaitDetached(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    late++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return waiting.size();
            }
        }
        return late;
    }

    /** @return the connections currently open */
    public List<MultipathConnection> connections() {
        return new ArrayList<>(connections.keySet());
    }

    /**
     * A verbs provider was bound (or re-bound with new devices): wakes the {@code listen} and
     * {@code connect} calls waiting for one.
     */
    public void providerAdded() {
        synchronized (providerChange) {
            providerGeneration++;
            providerChange.notifyAll();
        }
    }

    /** As {@link #providerAdded()}, for this provider (bound again: its connections may stay). */
    public void providerAdded(VerbsProvider p) {
        goneProviders.remove(p);
        providerAdded();
    }

    /**
     * The provider the options name, once it is bound and offers the device they name (any device
     * if none): waits for that at most {@link ConnectOptions#providerTimeout()}, woken by
     * {@link #providerAdded()}, so a provider being re-created after a configuration change needs
     * no retry loop in the caller.
     */
    VerbsProvider provider(ConnectOptions o) throws VirtuosoException {
        String name = o.provider() != null ? o.provider() : settings.defaultProvider();
        long timeout = o.providerTimeout().toNanos();
        long deadline = System.nanoTime() + timeout;
        while (true) {
            long generation;
            synchronized (providerChange) {
                generation = providerGeneration;
            }
            VerbsProvider p = providers.apply(name);
            String missing = p == null ? (name == null ? "no verbs provider is bound" : "no verbs provider named " + name)
                    : missingDevice(p, o.device());
            if (missing == null) {
                return p;
            }
            synchronized (providerChange) {
                while (generation == providerGeneration) {
                    long left = deadline - System.nanoTime();
                    if (closed) {
                        throw new VirtuosoException(Reason.CLOSED, "connector is closed");
                    }
                    if (left <= 0) {
                        throw new VirtuosoException(Reason.PROVIDER_UNAVAILABLE, missing
                                + (timeout > 0 ? " (waited " + TimeUnit.NANOSECONDS.toMillis(timeout) + " ms)" : ""));
                    }
                    try {
                        TimeUnit.NANOSECONDS.timedWait(providerChange, left);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new VirtuosoException(Reason.PROVIDER_UNAVAILABLE, missing
                                + " (interrupted while waiting for it)", e);
                    }
                }
            }
        }
    }

    /** @return why {@code p} cannot serve {@code device} now, or {@code null} if it can */
    private static String missingDevice(VerbsProvider p, String device) {
        try {
            for (RdmaDevice d : p.devices()) {
                if (device == null || d.name().equals(device)) {
                    return null;
                }
            }
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.WARNING, "provider " + p.name() + " cannot list its devices", e);
            return "provider " + p.name() + " cannot list its devices: " + e.getMessage();
        }
        return "provider " + p.name() + " has no device " + (device == null ? "" : device);
    }

    private String newId() {
        return idPrefix + "-" + nextId.incrementAndGet();
    }

    /** @return the engine agents serving this connector's connections */
    public EngineGroup engines() {
        return engines;
    }

    private void checkOpen() throws VirtuosoException {
        if (closed || engines.isClosed()) {
            throw new VirtuosoException(Reason.CLOSED, "connector is closed");
        }
    }

    @Override
    public MultipathConnection connect(InetSocketAddress remote, ConnectOptions options) throws VirtuosoException {
        checkOpen();
        PolicyBinder.check(registry, options);
        VerbsProvider provider = provider(options);
        Setup setup = new Setup(newId(), options, settings, provider, reassembler, null, engines.assign(), controlIo,
                capacities);
        setup.client = true;
        try {
            BootstrapLimits limits = bootstrap;
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limits.deadlineMillis());
            setup.open();
            Handshake.Result hr = Handshake.client(remote, options.sharedSecret(), options.remoteAddresses(),
                    options.handshakeTimeout(), deadline, limits.peer(), setup);
            return establish(setup, hr, remote, provider);
        } finally {
            setup.close();
        }
    }

    @Override
    public MultipathListener listen(InetSocketAddress bootstrap, ConnectOptions options) throws VirtuosoException {
        checkOpen();
        PolicyBinder.check(registry, options);
        VerbsProvider provider = provider(options);
        List<InetAddress> locals = Setup.localAddresses(deviceAddresses(provider, options.device()), options);
        BootstrapLimits limits = this.bootstrap;
        ServerSocketChannel ssc = null;
        try {
            ssc = ServerSocketChannel.open();
            ssc.bind(bootstrap, limits.backlog());
        } catch (IOException e) {
            if (ssc != null) {
                try {
                    ssc.close();
                } catch (IOException ignored) {
                    // failing anyway
                }
            }
            throw new VirtuosoException(Reason.IO, "cannot listen on " + bootstrap + ": " + e.getMessage(), e);
        }
        Listener l = new Listener(this, ssc, options, provider, locals, limits);
        listeners.add(l);
        if (closed || !l.start()) {
            // close() ran since checkOpen(): it may have missed this listener, or closed it unstarted
            l.close();
            throw new VirtuosoException(Reason.CLOSED, "connector is closed");
        }
        return l;
    }

    private static List<InetAddress> deviceAddresses(VerbsProvider p, String device) throws VirtuosoException {
        try {
            for (RdmaDevice d : p.devices()) {
                if (device == null || d.name().equals(device)) {
                    List<InetAddress> out = new ArrayList<>();
                    for (Vnic v : d.vnics()) {
                        out.add(v.address());
                    }
                    return out;
                }
            }
        } catch (VerbsException e) {
            throw new VirtuosoException(Reason.PROVIDER_UNAVAILABLE, "cannot list devices: " + e.getMessage(), e);
        }
        throw new VirtuosoException(Reason.PROVIDER_UNAVAILABLE, "provider " + p.name() + " has no device "
                + (device == null ? "" : device));
    }

    /**
     * Server side of one accepted bootstrap connection (a listener's handshake thread).
     *
     * @param first bytes the listener already read (position..limit)
     * @param deadlineNanos end of the whole handshake
     * @param peerLimits caps on the client's sizes
     * @param admission asked before any QP is created (see {@link Handshake#server})
     */
    MpConnection accept(SocketChannel socket, ByteBuffer first, ConnectOptions options, VerbsProvider provider,
            List<InetAddress> locals, long deadlineNanos, PeerLimits peerLimits, Supplier<String> admission)
            throws VirtuosoException {
        FrameChannel fc;
        try {
            fc = FrameChannel.accepted(socket, first);
        } catch (IOException e) {
            throw new VirtuosoException(Reason.IO, "cannot set up accepted connection: " + e.getMessage(), e);
        }
        Setup setup = new Setup(newId(), options, settings, provider, reassembler, locals, engines.assign(), controlIo,
                capacities);
        try {
            Handshake.Result hr = Handshake.server(fc, options.sharedSecret(), options.handshakeTimeout(),
                    deadlineNanos, peerLimits, admission, setup);
            return establish(setup, hr, fc.remoteAddress(), provider);
        } catch (VirtuosoException | RuntimeException e) {
            fc.close();
            throw e;
        } finally {
            setup.close();
        }
    }

    private MpConnection establish(Setup s, Handshake.Result hr, InetSocketAddress remote, VerbsProvider provider)
            throws VirtuosoException {
        PathMonitorFactory factory;
        synchronized (this) {
            factory = monitors;
            if (factory != null) {
                monitorSetups++; // pathMonitorsGone waits for this set-up to be listed
            }
        }
        try {
            return establish(s, hr, remote, provider, factory);
        } finally {
            if (factory != null) {
                synchronized (this) {
                    monitorSetups--;
                    notifyAll();
                }
            }
        }
    }

    private MpConnection establish(Setup s, Handshake.Result hr, InetSocketAddress remote, VerbsProvider provider,
            PathMonitorFactory factory) throws VirtuosoException {
        ConnectOptions o = s.options;
        PathMonitor monitor = null;
        if (factory != null) {
            try {
                monitor = factory.newMonitor(s.id, PathMonitorLink.monitorProperties(o.policyProperties(), s.client),
                        hr.peer().scratch().length());
            } catch (RuntimeException e) {
                hr.channel().close();
                throw new IllegalArgumentException("the path monitor refused connection " + s.id + ": "
                        + e.getMessage(), e);
            }
        }
        try {
            s.reassembly.packetBytes(Math.min(o.mtu(), hr.peer().mtu())); // every path's MTU (Setup, PathManager)
            s.reassembly.start(hr.peer().maxReceives(), hr.peer().slots(), hr.peer().slotBytes());
        } catch (VerbsException e) {
            hr.channel().close();
            closeQuietly(monitor);
            throw new VirtuosoException(Reason.VERBS, "cannot post receive slots: " + e.getMessage(), e);
        }
        ByteBuffer leftover = ByteBuffer.allocate(Protocol.HEADER_BYTES + Protocol.MAX_HANDSHAKE_BODY);
        SocketChannel socket;
        try {
            socket = hr.channel().detach(leftover);
        } catch (IOException e) {
            hr.channel().close();
            closeQuietly(monitor);
            throw new VirtuosoException(Reason.IO, "cannot keep the control channel: " + e.getMessage(), e);
        }
        leftover.flip();
        ConnectionEngine engine;
        try {
            engine = new ConnectionEngine(s, hr.peer().scratch(), socket, leftover, remote, decomposer, registry, monitor,
                    factory, this::closed);
        } catch (IOException | RuntimeException e) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // failing anyway
            }
            closeQuietly(monitor);
            if (e instanceof RuntimeException r) {
                throw r;
            }
            throw new VirtuosoException(Reason.IO, "cannot start the control channel: " + e.getMessage(), e);
        }
        MpConnection conn = engine.connection();
        s.handOver();
        connections.put(conn, provider);
        if (factory != null && monitors != factory) {
            // the factory went away during the set-up, after pathMonitorsGone looked at the connections
            engine.monitor().requestDetach(factory);
        }
        engine.start();
        if (goneProviders.contains(provider)) {
            // providerGone ran during the set-up, after it looked at the connections
            engine.requestClose(0);
        }
        Observer obs = observer;
        if (obs != null) {
            obs.established(conn);
        }
        if (closed) {
            conn.close();
            throw new VirtuosoException(Reason.CLOSED, "connector closed");
        }
        return conn;
    }

    private void closed(MpConnection c) {
        connections.remove(c);
        Observer obs = observer;
        if (obs != null) {
            obs.closed(c);
        }
    }

    private static void closeQuietly(PathMonitor m) {
        if (m != null) {
            try {
                m.close();
            } catch (RuntimeException e) {
                // the connection attempt fails anyway; the monitor is never used
            }
        }
    }

    void forget(Listener l) {
        listeners.remove(l);
    }

    /**
     * Disconnects every connection opened through a provider that went away, and forgets its
     * probe results (a provider bound again is a new instance, maybe configured differently).
     */
    public void providerGone(VerbsProvider p) {
        // first: a connection being set up on p checks this after it is listed (establish)
        goneProviders.add(p);
        capacities.forget(p);
        for (Map.Entry<MpConnection, VerbsProvider> e : connections.entrySet()) {
            if (e.getValue() == p) {
                e.getKey().engine().requestClose(0);
            }
        }
    }

    /** Closes every listener and disconnects every connection (flushing their work). */
    @Override
    public void close() {
        closed = true;
        synchronized (providerChange) {
            providerChange.notifyAll();
        }
        for (Listener l : listeners) {
            l.close();
        }
        for (MpConnection c : connections.keySet()) {
            c.engine().requestClose(0);
        }
        // one deadline for all: connections on a stalled agent must not cost 5 s each
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CLOSE_WAIT_MILLIS);
        for (MpConnection c : connections.keySet()) {
            c.engine().join(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        controlIo.close(CONTROL_IO_STOP_MILLIS);
        capacities.clear();
        if (ownsEngines) {
            engines.close();
        }
    }
}
