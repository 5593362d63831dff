package dev.virtuoso.verbs.soft.rnic;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.Vnic;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.packet.Psn;
import dev.virtuoso.verbs.soft.udp.UdpWirePort;
import dev.virtuoso.verbs.soft.wire.Wire;
import dev.virtuoso.verbs.soft.wire.WirePort;

/**
 * One soft RNIC device: its wire, one port per vNIC address, and its engine thread
 * ({@code virtuoso-soft-<device>}). The device starts when the first context is opened and stops
 * (thread joined, wire closed) when the last one closes. Usable without OSGi.
 *
 * <p>Thread-safe.
 */
public final class SoftRnic implements AutoCloseable {
    final SoftRnicConfig config;
    final SoftCounters counters = new SoftCounters(null);
    final MrTable mrs = new MrTable();
    private final SecureRandom random = new SecureRandom();
    private final Object lock = new Object();
    private final Set<SoftContext> contexts = new LinkedHashSet<>();
    private final Set<Integer> qpNums = new HashSet<>();
    private List<Vnic> vnics = List.of();
    private InetAddress[] addresses = new InetAddress[0];
    private WirePort[] ports = new WirePort[0];
    private int[] interfaceMtus = new int[0];
    private Wire wire;
    private volatile Engine engine;
    private Thread thread;
    private int udpPort;

    /** @param config the device's settings */
    public SoftRnic(SoftRnicConfig config) {
        this.config = config;
    }

    /** @return the device name */
    public String name() {
        return config.deviceName();
    }

    /** @return the configuration */
    public SoftRnicConfig config() {
        return config;
    }

    /** @return the vNICs (configured addresses) in GID order */
    public List<Vnic> configuredVnics() {
        List<Vnic> out = new ArrayList<>();
        List<InetAddress> a = config.addresses();
        for (int i = 0; i < a.size(); i++) {
            out.add(new Vnic(a.get(i), i, ""));
        }
        return out;
    }

    /**
     * Opens a context, starting the device if it is not running.
     *
     * @return a new context owned by the caller
     * @throws VerbsException {@link VerbsException#EIO} if the wire or a port cannot be opened
     */
    public IbvContext open() throws VerbsException {
        synchronized (lock) {
            if (engine == null) {
                start();
            }
            SoftContext c = new SoftContext(this);
            contexts.add(c);
            return c;
        }
    }

    private void start() throws VerbsException {
        Wire w;
        try {
            w = config.wireFactory().create(config.deviceName());
        } catch (IOException | RuntimeException e) {
            throw new VerbsException(VerbsException.EIO, "cannot create the wire of " + name(), e);
        }
        List<InetAddress> addrs = config.addresses();
        WirePort[] opened = new WirePort[addrs.size()];
        try {
            int port = config.udpPort();
            for (int i = 0; i < opened.length; i++) {
                opened[i] = w.open(addrs.get(i), port);
                if (port == 0) {
                    port = opened[i].localAddress().getPort();
                }
            }
            udpPort = port;
        } catch (IOException | RuntimeException e) {
            w.close();
            throw new VerbsException(VerbsException.EIO, "cannot open the ports of " + name()
                    + " on " + addrs + " port " + config.udpPort() + ": " + e.getMessage(), e);
        }
        warnIfIcrcUnverifiable(opened);
        int[] mtus = new int[opened.length];
        for (int i = 0; i < opened.length; i++) {
            mtus[i] = opened[i] instanceof UdpWirePort ? config.interfaceMtu().applyAsInt(addrs.get(i)) : 0;
        }
        interfaceMtus = mtus;
        wire = w;
        ports = opened;
        addresses = addrs.toArray(new InetAddress[0]);
        vnics = configuredVnics();
        Engine e = new Engine(this, w, opened);
        Thread t = new Thread(e, "virtuoso-soft-" + name());
        t.setDaemon(true);
        engine = e;
        thread = t;
        t.start();
    }

    /**
     * The generated ICRC assumes IPv4 ID 0 with DF; a UDP socket gives that only with
     * IP_DONTFRAGMENT (Java 19+). Peers that verify ICRCs (rxe, hardware) drop our packets otherwise.
     */
    private void warnIfIcrcUnverifiable(WirePort[] opened) {
        for (WirePort p : opened) {
            if (p instanceof UdpWirePort && p.localAddress().getAddress() instanceof Inet4Address
                    && !((UdpWirePort) p).dontFragment()) {
                System.getLogger(SoftRnic.class.getName()).log(System.Logger.Level.INFO,
                        "soft RNIC " + name() + ": this JVM cannot set IP_DONTFRAGMENT, so the "
                        + "kernel picks IPv4 IDs and peers that verify ICRCs (rxe, RNICs) will "
                        + "drop our packets; soft-to-soft traffic is unaffected");
                return;
            }
        }
    }

    void release(SoftContext c) {
        synchronized (lock) {
            if (contexts.remove(c) && contexts.isEmpty()) {
                stop();
            }
        }
    }

    private void stop() {
        Engine e = engine;
        if (e == null) {
            return;
        }
        e.stop();
        engine = null;
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException ie) {
            Thread.currentThread().interrupt();
        }
        wire.close();
        wire = null;
        thread = null;
    }

    /** Closes every context opened on this device, which stops it. Idempotent. */
    @Override
    public void close() {
        List<SoftContext> open;
        synchronized (lock) {
            open = new ArrayList<>(contexts);
        }
        for (SoftContext c : open) {
            c.close();
        }
    }

    /** @return true while the engine thread runs */
    public boolean isRunning() {
        Engine e = engine;
        return e != null && e.isRunning();
    }

    List<Vnic> vnics() {
        return vnics;
    }

    int udpPort() {
        return udpPort;
    }

    int vnicCount() {
        return ports.length;
    }

    WirePort port(int gidIndex) {
        return ports[gidIndex];
    }

    InetAddress vnicAddress(int gidIndex) {
        return addresses[gidIndex];
    }

    /**
     * @param gidIndex the vNIC a QP sends from
     * @param mtu the path MTU asked for
     * @return why the vNIC's interface cannot carry that path MTU unfragmented, or {@code null}
     */
    String pathMtuProblem(int gidIndex, IbvMtu mtu) {
        return PathMtuLimit.problem(mtu, addresses[gidIndex], interfaceMtus[gidIndex]);
    }

    /** Any thread: tells the engine a WR was posted on {@code qp}. */
    void doorbell(SoftQp qp) {
        Engine e = engine;
        if (e != null) {
            e.doorbell(qp);
        }
    }

    /**
     * A poller found a CQ of this device empty: runs a duty cycle of the engine in its thread if
     * the device is configured so ({@link SoftRnicConfig#invokeOnPoll()}).
     *
     * @return work done (0 if not configured so, stopped, or another thread runs a cycle)
     */
    int invoke() {
        Engine e = engine;
        return e == null ? 0 : e.invoke();
    }

    /** @return duty cycles CQ pollers ran on this device (0 unless {@link SoftRnicConfig#invokeOnPoll()}) */
    long invokes() {
        Engine e = engine;
        return e == null ? 0 : e.invokes();
    }

    /** @return times the engine thread stood back for CQ pollers */
    long standBacks() {
        Engine e = engine;
        return e == null ? 0 : e.standBacks();
    }

    /** @return true while the engine thread stands back for CQ pollers (tests) */
    boolean standingBack() {
        Engine e = engine;
        return e != null && e.standingBack();
    }

    /** A poller is about to block on a CQ event: the engine thread takes the duty cycles back. */
    void handBack() {
        Engine e = engine;
        if (e != null) {
            e.handBack();
        }
    }

    /**
     * Runs a control operation on the engine thread and waits for it.
     *
     * @throws VerbsException what the task threw; {@link VerbsException#ENODEV} if the device is
     *     stopped; {@link VerbsException#ETIMEDOUT} if the engine does not answer in time
     */
    <T> T call(EngineTask<T> task) throws VerbsException {
        Engine e = engine;
        if (e == null || !e.isRunning()) {
            throw new VerbsException(VerbsException.ENODEV, "device " + name() + " is closed");
        }
        if (Thread.currentThread() == thread || e.inCycle()) {
            return task.run(e);
        }
        FutureTask<T> f = new FutureTask<>(() -> task.run(e));
        if (!e.submit(f)) {
            throw new VerbsException(VerbsException.ENODEV, "device " + name() + " is closed");
        }
        try {
            return f.get(config.commandTimeoutMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException ex) {
            Throwable c = ex.getCause();
            if (c instanceof VerbsException) {
                VerbsException v = (VerbsException) c;
                throw new VerbsException(v.errno(), v.getMessage(), v);
            }
            throw new VerbsException(VerbsException.EIO, "engine command failed", c);
        } catch (CancellationException ex) {
            throw new VerbsException(VerbsException.ENODEV, "device " + name() + " closed");
        } catch (TimeoutException ex) {
            f.cancel(false);
            throw new VerbsException(VerbsException.ETIMEDOUT, "engine of " + name()
                    + " did not answer within " + config.commandTimeoutMillis() + " ms");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new VerbsException(VerbsException.EIO, "interrupted", ex);
        }
    }

    /**
     * Waits for the engine to reach its next command point (between two ports' receive batches or two
     * QPs' turns, never inside a copy), so a region just marked invalid is no longer being copied to
     * or from when this returns (the engine checks validity before every copy).
     */
    void quiesce() {
        try {
            call(e -> null);
        } catch (VerbsException e) {
            // stopped: nothing runs
        }
    }

    SoftQp createQp(SoftPd pd, SoftCq sendCq, SoftCq recvCq, SoftSrq srq, int maxSendWr,
            int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInline, boolean sigAll)
            throws VerbsException {
        int qpn;
        synchronized (qpNums) {
            do {
                qpn = random.nextInt() & Psn.MASK;
            } while (qpn < 16 || qpNums.contains(qpn));
            qpNums.add(qpn);
        }
        SoftQp qp = new SoftQp(this, pd, qpn, sendCq, recvCq, srq, maxSendWr, maxRecvWr,
                maxSendSge, maxRecvSge, maxInline, sigAll);
        try {
            call(e -> {
                e.addQp(qp);
                return null;
            });
        } catch (VerbsException ex) {
            synchronized (qpNums) {
                qpNums.remove(qpn);
            }
            throw ex;
        }
        return qp;
    }

    void destroyQp(SoftQp qp) {
        try {
            call(e -> {
                qp.enterError(e);
                e.removeQp(qp);
                return null;
            });
        } catch (VerbsException ex) {
            // device already stopped: nothing runs the QP any more
        }
        synchronized (qpNums) {
            qpNums.remove(qp.qpNum);
        }
    }

    @Override
    public String toString() {
        return "SoftRnic[" + name() + " " + config.addresses() + ":" + config.udpPort() + "]";
    }
}
