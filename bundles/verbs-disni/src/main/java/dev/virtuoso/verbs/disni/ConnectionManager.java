package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;

/**
 * The RDMA CM side of one open device: one event channel, one thread
 * ({@code virtuoso-disni-cm-<device>}) that waits on it in short slices and drives every QP's
 * connection (address and route resolution, connect, accept, established, disconnect), and the
 * maps from CM ids to QPs.
 *
 * <p>Locking: DiSNI keeps the CM ids of a channel in a plain HashMap that both id creation and
 * event delivery touch, so every CM call and every QP transition that needs one runs under this
 * manager's (fair) lock, which the thread holds while it waits for an event for at most
 * {@link DisniSettings#cmPollMillis()}. Lock order: this lock, then a QP's monitor.
 */
final class ConnectionManager implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ConnectionManager.class.getName());
    private static final RdmaCmEvent.EventType[] EVENT_TYPES = RdmaCmEvent.EventType.values();
    private static final int BACKLOG = 16;

    /** A QP's listener: its CM id and the port, which is the QP number. */
    record Listener(RdmaCmId id, int port) {
    }

    private final RdmaCm cm;
    private final DisniSettings settings;
    private final RdmaEventChannel channel;
    private final ReentrantLock lock = new ReentrantLock(true);
    private final Map<RdmaCmId, DisniQp> listeners = new IdentityHashMap<>();
    private final Map<RdmaCmId, DisniQp> connections = new IdentityHashMap<>();
    private final Map<DisniQp, RdmaCmId> held = new IdentityHashMap<>();
    private final Map<DisniQp, Boolean> connecting = new IdentityHashMap<>();
    private final List<RdmaCmId> ownIds = new ArrayList<>();
    private final Thread thread;
    private final LongAdder strayEvents = new LongAdder();
    private final LongAdder eventErrors = new LongAdder();
    private volatile boolean running = true;
    private int nextPort;

    ConnectionManager(RdmaCm cm, String device, DisniSettings settings) throws IOException {
        this.cm = cm;
        this.settings = settings;
        this.channel = cm.createEventChannel();
        if (channel == null) {
            throw new IOException("rdma_create_event_channel failed");
        }
        this.nextPort = settings.firstQpn();
        this.thread = new Thread(this::run, "virtuoso-disni-cm-" + device);
        thread.setDaemon(true);
        thread.start();
    }

    void lock() {
        lock.lock();
    }

    void unlock() {
        lock.unlock();
    }

    /**
     * Binds a CM id to a local address of the device, which attaches it to the device's verbs
     * context (librdmacm opens one context per device and shares it between ids).
     *
     * @param address a vNIC address of the device
     * @return the bound id, destroyed by {@link #close()}
     */
    RdmaCmId bindDevice(InetAddress address) throws IOException {
        lock();
        try {
            RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
            try {
                id.bindAddr(new InetSocketAddress(address, 0));
            } catch (IOException e) {
                destroyQuietly(id);
                throw e;
            }
            ownIds.add(id);
            return id;
        } finally {
            unlock();
        }
    }

    /** A listener on the wildcard address with the next free port (lock held). */
    Listener listen() throws IOException {
        InetAddress any = InetAddress.getByAddress(new byte[4]);
        IOException last = null;
        int span = 65536 - settings.firstQpn();
        for (int attempt = 0; attempt < span; attempt++) {
            int port = nextPort;
            nextPort = port == 65535 ? settings.firstQpn() : port + 1;
            RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
            try {
                id.bindAddr(new InetSocketAddress(any, port));
                id.listen(BACKLOG);
                return new Listener(id, port);
            } catch (IOException e) {
                last = e;
                destroyQuietly(id);
            }
        }
        throw last != null ? last : new IOException("no free RDMA CM port");
    }

    void registerListener(RdmaCmId id, DisniQp qp) {
        listeners.put(id, qp);
    }

    void closeListener(RdmaCmId id) {
        listeners.remove(id);
        destroyQuietly(id);
    }

    /** The QP waits for its connection (deadline checked by the thread). */
    void connecting(DisniQp qp) {
        connecting.put(qp, Boolean.TRUE);
    }

    /** The QP's connection attempt is over (established, failed, reset or closed). */
    void settled(DisniQp qp) {
        connecting.remove(qp);
    }

    /** Active side: bind to the path's local vNIC and start resolving the peer's address. */
    RdmaCmId startActive(DisniQp qp, InetSocketAddress localBind, InetSocketAddress remote) throws IOException {
        RdmaCmId id = channel.createId(RdmaCm.RDMA_PS_TCP);
        try {
            id.bindAddr(localBind);
            id.resolveAddr(null, remote, settings.connectTimeoutMillis());
        } catch (IOException e) {
            destroyQuietly(id);
            throw e;
        }
        connections.put(id, qp);
        return id;
    }

    /** Passive side: keeps a request that arrived before the QP reached RTR. */
    boolean hold(DisniQp qp, RdmaCmId id) {
        if (held.containsKey(qp)) {
            return false;
        }
        held.put(qp, id);
        return true;
    }

    RdmaCmId takeHeldRequest(DisniQp qp) {
        return held.remove(qp);
    }

    void dropHeld(DisniQp qp) {
        RdmaCmId id = held.remove(qp);
        if (id != null) {
            destroyQuietly(id);
        }
    }

    /** @return whether a request's local and peer addresses are the path's */
    boolean matches(RdmaCmId id, InetAddress local, InetAddress peer) throws IOException {
        return sameAddress(id.getSource(), local) && sameAddress(id.getDestination(), peer);
    }

    private static boolean sameAddress(SocketAddress a, InetAddress expected) {
        return a instanceof InetSocketAddress isa && expected.equals(isa.getAddress());
    }

    void adopt(RdmaCmId id, DisniQp qp) {
        connections.put(id, qp);
    }

    void accept(RdmaCmId id, int retry, int rnrRetry) throws IOException {
        id.accept(param(retry, rnrRetry));
    }

    void connect(RdmaCmId id, int retry, int rnrRetry) throws IOException {
        id.connect(param(retry, rnrRetry));
    }

    private static RdmaConnParam param(int retry, int rnrRetry) throws IOException {
        RdmaConnParam p = new RdmaConnParam();
        p.setRetry_count((byte) retry);
        p.setRnr_retry_count((byte) rnrRetry);
        return p;
    }

    /** rdma_disconnect: librdmacm moves the QP to ERR and the peer gets DISCONNECTED. */
    void disconnect(RdmaCmId id) {
        try {
            id.disconnect();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "rdma_disconnect failed", e);
        }
    }

    /** Destroys a connection's QP (if it has one) and its id. */
    void release(RdmaCmId id, boolean hasQp) {
        connections.remove(id);
        if (hasQp) {
            try {
                id.destroyQP();
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "rdma_destroy_qp failed", e);
            }
        }
        destroyQuietly(id);
    }

    void destroyQuietly(RdmaCmId id) {
        try {
            id.destroyId();
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.DEBUG, "rdma_destroy_id failed", e);
        }
    }

    /** @return events that matched no QP, and failures while handling events (diagnostics) */
    long[] diagnostics() {
        return new long[] {strayEvents.sum(), eventErrors.sum()};
    }

    private void run() {
        while (running) {
            boolean failed = false;
            lock();
            try {
                if (!running) {
                    break;
                }
                RdmaCmEvent ev = channel.getCmEvent(settings.cmPollMillis());
                if (ev != null) {
                    dispatch(ev);
                }
                expire();
            } catch (IOException | RuntimeException e) {
                eventErrors.increment();
                failed = true;
                LOG.log(Level.DEBUG, "RDMA CM event handling failed", e);
            } finally {
                unlock();
            }
            if (failed) {
                pause();
            }
        }
    }

    private void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(settings.cmPollMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    private void dispatch(RdmaCmEvent ev) throws IOException {
        int code = ev.getEvent();
        if (code < 0 || code >= EVENT_TYPES.length) {
            strayEvents.increment();
            return;
        }
        RdmaCmId id = ev.getConnIdPriv();
        RdmaCmEvent.EventType type = EVENT_TYPES[code];
        if (type == RdmaCmEvent.EventType.RDMA_CM_EVENT_CONNECT_REQUEST) {
            DisniQp qp = listeners.get(ev.getListenIdPriv());
            if (qp == null || id == null) {
                strayEvents.increment();
                if (id != null) {
                    destroyQuietly(id);
                }
                return;
            }
            qp.onConnectRequest(id);
            return;
        }
        DisniQp qp = id == null ? null : connections.get(id);
        if (qp == null) {
            strayEvents.increment();
            return;
        }
        switch (type) {
            case RDMA_CM_EVENT_ADDR_RESOLVED -> {
                try {
                    id.resolveRoute(settings.connectTimeoutMillis());
                } catch (IOException e) {
                    qp.onConnectFailed(id, "rdma_resolve_route failed: " + e.getMessage());
                }
            }
            case RDMA_CM_EVENT_ROUTE_RESOLVED -> qp.onRouteResolved(id);
            case RDMA_CM_EVENT_ESTABLISHED -> qp.onEstablished(id);
            case RDMA_CM_EVENT_ADDR_ERROR, RDMA_CM_EVENT_ROUTE_ERROR, RDMA_CM_EVENT_CONNECT_ERROR,
                    RDMA_CM_EVENT_UNREACHABLE, RDMA_CM_EVENT_REJECTED, RDMA_CM_EVENT_DEVICE_REMOVAL ->
                qp.onConnectFailed(id, type.name());
            case RDMA_CM_EVENT_DISCONNECTED -> qp.onDisconnected(id);
            default -> {
                // CONNECT_RESPONSE is consumed by librdmacm; TIMEWAIT_EXIT and others need nothing
            }
        }
    }

    private void expire() {
        if (connecting.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (DisniQp qp : List.copyOf(connecting.keySet())) {
            if (qp.expireIfLate(now)) {
                connecting.remove(qp);
            }
        }
    }

    /** Stops the thread (bounded wait) and destroys the remaining ids and the channel. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join(Math.max(1000, 20L * settings.cmPollMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        lock();
        try {
            for (RdmaCmId id : held.values()) {
                destroyQuietly(id);
            }
            held.clear();
            for (RdmaCmId id : List.copyOf(listeners.keySet())) {
                destroyQuietly(id);
            }
            listeners.clear();
            for (RdmaCmId id : ownIds) {
                destroyQuietly(id);
            }
            ownIds.clear();
            connections.clear();
            connecting.clear();
            try {
                channel.destroyEventChannel();
            } catch (IOException | RuntimeException e) {
                LOG.log(Level.DEBUG, "rdma_destroy_event_channel failed", e);
            }
        } finally {
            unlock();
        }
    }
}
