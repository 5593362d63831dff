package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.qpmanager.internal.bootstrap.Authenticator;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPath;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPathAck;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPathNak;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.PathRef;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.RepairPath;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * Path control of one connection: the paths' QPs, adding, repairing and removing paths on the live
 * connection through the control channel, and the paths' states through their {@link PathLifecycle}.
 * The chunk data path over the same QPs is {@link ChunkPoster}. Engine thread only.
 *
 * <p>Adding: the initiator creates a QP and sends ADD_PATH; the responder creates and connects its
 * QP and answers ADD_PATH_ACK; the initiator connects, starts using the path and sends PATH_READY,
 * after which the responder uses it too. Removing: a side stops placing chunks on the path and
 * sends REMOVE_PATH; each side, once its own chunks on the path have completed, sends PATH_DRAINED;
 * a side destroys its QP when both directions are drained (or at the deadline).
 *
 * <p>Failback: a path whose QP failed leaves the placement; once its chunks are flushed, the side
 * that saw the failure replaces its QP and sends REPAIR_PATH; the peer replaces its own QP and
 * answers REPAIR_ACK; the path rejoins (PATH_READY as for an added path). Attempts back off
 * exponentially while the path keeps failing. If both sides repair at once, the client's request
 * wins.
 */
final class PathManager {
    private static final System.Logger LOG = System.getLogger(PathManager.class.getName());
    /**
     * First repair delay after a failure, doubled while the path keeps failing: short, since on a
     * lossy path with no QP retries every congestion loss costs a repair.
     */
    static final long MIN_REPAIR_DELAY_NANOS = 2_000_000L;
    static final long MAX_REPAIR_DELAY_NANOS = 1_000_000_000L;
    private static final long FLUSH_WAIT_NANOS = 1_000_000_000L;
    private static final String QP_RECREATE_FAILED = "cannot re-create the QP: ";

    private final VerbsResources res;
    private final Reassembly receives;
    private final PathTable table;
    private final ControlWriter writer;
    private final ConnectOptions options;
    private final CoreSettings settings;
    private final List<InetAddress> allowedLocals;
    private final boolean client;
    private final PathSlot[] byId;
    private final Map<Integer, PendingAdd> pendingAdds = new HashMap<>();
    /** Paths the peer added, waiting for its PATH_READY until their deadline. */
    private final List<Joining> joining = new ArrayList<>();
    private long joinsExpired;
    /** Control frames about a path or request that no longer exists here (races, or a confused peer). */
    private long controlIgnored;
    /** Answers (NAKs) the control channel had no room for. */
    private long answersUnsent;
    private Decomposition decomposition;
    private PathEvents events = PathEvents.NONE;
    /** The only writer of path state. */
    private final PathLifecycle lifecycle;
    private final ChunkPoster chunks;
    private int nextRequestId = 1;
    private long pathFailures;

    private record PendingAdd(PathSlot slot, CompletableFuture<Integer> result, long deadline) {
    }

    private record Joining(PathSlot slot, long deadline) {
    }

    PathManager(VerbsResources res, Reassembly receives, PathTable table, ControlWriter writer, ConnectOptions options,
            CoreSettings settings, List<InetAddress> allowedLocals, boolean client) {
        this.client = client;
        this.res = res;
        this.receives = receives;
        this.table = table;
        this.writer = writer;
        this.options = options;
        this.settings = settings;
        this.allowedLocals = List.copyOf(allowedLocals);
        this.byId = new PathSlot[table.capacity()];
        this.lifecycle = new PathLifecycle(table);
        this.chunks = new ChunkPoster(byId, table, this);
    }

    void decomposition(Decomposition d) {
        decomposition = d;
    }

    /** @param e told about path changes before the policy sessions are */
    void events(PathEvents e) {
        events = e;
        lifecycle.listener(e);
    }

    /** Adds a path established by the handshake. */
    void addEstablished(PathSlot slot) {
        slot.id = table.add();
        byId[slot.id] = slot;
        events.pathAdded(slot.id);
    }

    /** @return the slot of a path id, or {@code null} */
    PathSlot slot(int id) {
        return id >= 0 && id < byId.length ? byId[id] : null;
    }

    long pathFailures() {
        return pathFailures;
    }

    // ---------------------------------------------------------------- path failure

    /** @return the chunk data path over these paths (the decomposition's transport, the probes' poster) */
    ChunkPoster chunks() {
        return chunks;
    }

    /**
     * A completion, a post or a probe showed the path's QP in error: it leaves the placement
     * (RECOVERING) and its repair is scheduled, backing off while it keeps failing.
     */
    void pathFailed(int path, IbvWcStatus status) {
        pathFailures++;
        lifecycle.fail(path);
        PathSlot s = byId[path];
        long now = table.nowNanos();
        s.failedAt = now;
        s.nextRepairAt = now + s.repairDelayNanos;
        LOG.log(System.Logger.Level.DEBUG, () -> "path " + path + " failed (" + status + "): repair in "
                + s.repairDelayNanos / 1_000_000 + " ms");
        s.repairDelayNanos = Math.min(2 * s.repairDelayNanos, MAX_REPAIR_DELAY_NANOS);
    }

    // ---------------------------------------------------------------- failback

    private int repairDuty(long now) {
        int work = 0;
        for (int p = 0; p < table.pathCount(); p++) {
            PathSlot s = byId[p];
            if (s == null || s.destroyed || s.removing) {
                continue;
            }
            if (table.state(p) == PathState.UP) {
                if (s.repairDelayNanos > MIN_REPAIR_DELAY_NANOS && table.chunksCompleted(p) > s.completedAtRepair) {
                    s.repairDelayNanos = MIN_REPAIR_DELAY_NANOS;
                }
                continue;
            }
            if (table.state(p) != PathState.RECOVERING || s.awaitingReady) {
                continue;
            }
            if (s.repairQp != null) {
                if (now - s.nextRepairAt > options.handshakeTimeout().toNanos()) {
                    s.dropRepair();
                    s.nextRepairAt = now + s.repairDelayNanos;
                }
                continue;
            }
            if (now - s.nextRepairAt < 0) {
                continue;
            }
            if (table.inFlightChunks(p) > 0) {
                if (now - s.failedAt < FLUSH_WAIT_NANOS) {
                    continue;
                }
                decomposition.abandonPath(p);
            }
            events.pathAbandoned(p);
            startRepair(s, now);
            work++;
        }
        return work;
    }

    private void startRepair(PathSlot s, long now) {
        IbvQp old = s.qp;
        QpBuilder.toError(old);
        QpBuilder.destroy(old, receives);
        try {
            s.repairQp = QpBuilder.create(res.pd, res.cq, receives, settings.sendQueueDepth());
        } catch (VerbsException e) {
            s.nextRepairAt = now + s.repairDelayNanos;
            return;
        }
        s.repairPsn = Authenticator.initialPsn();
        s.repairRequest = nextRequestId++;
        s.nextRepairAt = now;
        LOG.log(System.Logger.Level.DEBUG, () -> "path " + s.id + ": repair requested");
        RepairPath m = new RepairPath(s.repairRequest, old.qpNum(), res.context.udpPort(), s.repairQp.qpNum(),
                s.repairPsn, options.mtu());
        if (!send(Protocol.REPAIR_PATH, m::encode)) {
            s.dropRepair();
            s.nextRepairAt = now + s.repairDelayNanos;
        }
    }

    void onRepairPath(ByteBuffer body) throws ProtocolException {
        RepairPath m = RepairPath.decode(body);
        PathSlot s = byRemoteQpn(m.oldQpn());
        if (s == null || s.removing) {
            nak(Protocol.REPAIR_NAK, m.requestId(), "no such path");
            return;
        }
        if (s.repairQp != null) {
            if (client) {
                // both sides repair: the client's request wins, the server handles it
                nak(Protocol.REPAIR_NAK, m.requestId(), "repair collision");
                return;
            }
            s.dropRepair();
        }
        int p = s.id;
        if (lifecycle.fail(p)) {
            decomposition.pathsChanged();
        }
        QpBuilder.toError(s.qp);
        decomposition.abandonPath(p);
        events.pathAbandoned(p);
        QpBuilder.destroy(s.qp, receives);
        // the peer destroyed its old QP before asking: no attempt of ours on the path can land any more
        decomposition.pathFenced(p);
        try {
            s.qp = QpBuilder.create(res.pd, res.cq, receives, settings.sendQueueDepth());
            s.localPsn = Authenticator.initialPsn();
            s.remoteQpn = m.qpn();
            s.remotePsn = m.psn();
            s.remoteUdpPort = m.udpPort();
            s.mtu = Math.min(options.mtu(), m.mtu());
            QpBuilder.connect(s, options);
        } catch (VerbsException e) {
            LOG.log(System.Logger.Level.WARNING, "repair request " + m.requestId() + ": " + QP_RECREATE_FAILED, e);
            nak(Protocol.REPAIR_NAK, m.requestId(), QP_RECREATE_FAILED + e.getMessage());
            return;
        }
        s.awaitingReady = true;
        s.completedAtRepair = table.chunksCompleted(p);
        AddPathAck ack = new AddPathAck(m.requestId(), res.context.udpPort(), s.qp.qpNum(), s.localPsn,
                options.mtu());
        send(Protocol.REPAIR_ACK, ack::encode);
    }

    void onRepairAck(ByteBuffer body) throws ProtocolException {
        AddPathAck m = AddPathAck.decode(body);
        PathSlot s = byRepairRequest(m.requestId());
        if (s == null) {
            // a request given up on (timeout, collision, removal): the peer's QP stays unused
            controlIgnored++;
            return;
        }
        s.qp = s.repairQp;
        s.localPsn = s.repairPsn;
        s.repairQp = null;
        s.repairRequest = 0;
        s.remoteQpn = m.qpn();
        s.remotePsn = m.psn();
        s.remoteUdpPort = m.udpPort();
        s.mtu = Math.min(options.mtu(), m.mtu());
        // the peer destroyed its old QP before answering: our abandoned attempts can no longer land,
        // even if our new QP cannot be connected (e.g. our address of the path is gone)
        int released = decomposition.pathFenced(s.id);
        LOG.log(System.Logger.Level.DEBUG, () -> "path " + s.id + ": repair acknowledged, " + released
                + " messages released by the fence");
        try {
            QpBuilder.connect(s, options);
        } catch (VerbsException e) {
            s.nextRepairAt = table.nowNanos() + s.repairDelayNanos;
            return;
        }
        s.completedAtRepair = table.chunksCompleted(s.id);
        lifecycle.repaired(s.id);
        send(Protocol.PATH_READY, new PathRef(s.qp.qpNum())::encode);
        decomposition.pathsChanged();
    }

    void onRepairNak(ByteBuffer body) throws ProtocolException {
        AddPathNak m = AddPathNak.decode(body);
        PathSlot s = byRepairRequest(m.requestId());
        if (s != null) {
            if (m.reason().startsWith(QP_RECREATE_FAILED)) {
                // the peer destroyed its old QP before it failed to make a new one
                decomposition.pathFenced(s.id);
            }
            s.dropRepair();
            s.nextRepairAt = table.nowNanos() + s.repairDelayNanos;
        } else {
            controlIgnored++;
        }
    }

    private PathSlot byRepairRequest(int requestId) {
        for (int p = 0; p < table.pathCount(); p++) {
            PathSlot s = byId[p];
            if (s != null && s.repairQp != null && s.repairRequest == requestId) {
                return s;
            }
        }
        return null;
    }

    private void nak(int type, int requestId, String reason) {
        AddPathNak nak = new AddPathNak(requestId, reason);
        if (!send(type, nak::encode)) {
            answersUnsent++; // the peer's request times out instead
        }
    }

    // ---------------------------------------------------------------- adding

    /** Starts adding a path; {@code result} completes with its id when the peer has answered. */
    void requestAdd(InetAddress local, InetAddress remote, CompletableFuture<Integer> result, long now) {
        try {
            Vnic v = checkLocal(local);
            if (table.slotsInUse() + pendingAdds.size() + joining.size() >= table.capacity()) {
                throw new VirtuosoException(Reason.NO_PATH, "connection already has " + table.capacity() + " paths");
            }
            PathSlot slot = newSlot(v, remote);
            int id = nextRequestId++;
            AddPath msg = new AddPath(id, local, remote, res.context.udpPort(), slot.qp.qpNum(), slot.localPsn,
                    options.mtu());
            if (!send(Protocol.ADD_PATH, msg::encode)) {
                slot.destroy();
                throw new VirtuosoException(Reason.IO, "control channel is not writable");
            }
            pendingAdds.put(id, new PendingAdd(slot, result, now + options.handshakeTimeout().toNanos()));
        } catch (VirtuosoException e) {
            result.completeExceptionally(e);
        }
    }

    private Vnic checkLocal(InetAddress local) throws VirtuosoException {
        Vnic v = res.vnic(local);
        if (v == null || !allowedLocals.contains(local)) {
            throw new VirtuosoException(Reason.NO_PATH, local + " is not a vNIC this connection may use");
        }
        return v;
    }

    private PathSlot newSlot(Vnic v, InetAddress remote) throws VirtuosoException {
        try {
            return new PathSlot(v.address(), remote, v.gidIndex(),
                    QpBuilder.create(res.pd, res.cq, receives, settings.sendQueueDepth()), Authenticator.initialPsn(),
                    settings.sendQueueDepth(), receives);
        } catch (VerbsException e) {
            throw new VirtuosoException(Reason.VERBS, "cannot create a QP: " + e.getMessage(), e);
        }
    }

    void onAddPath(ByteBuffer body, long now) throws ProtocolException {
        AddPath m = AddPath.decode(body);
        PathSlot slot = null;
        try {
            if (table.slotsInUse() + pendingAdds.size() + joining.size() >= table.capacity()) {
                throw new VirtuosoException(Reason.NO_PATH, "connection already has " + table.capacity() + " paths");
            }
            slot = newSlot(checkLocal(m.responder()), m.initiator());
            slot.remoteQpn = m.qpn();
            slot.remotePsn = m.psn();
            slot.remoteUdpPort = m.udpPort();
            slot.mtu = Math.min(options.mtu(), m.mtu());
            QpBuilder.connect(slot, options);
            AddPathAck ack = new AddPathAck(m.requestId(), res.context.udpPort(), slot.qp.qpNum(), slot.localPsn,
                    options.mtu());
            if (!send(Protocol.ADD_PATH_ACK, ack::encode)) {
                slot.destroy();
                return;
            }
            joining.add(new Joining(slot, now + options.handshakeTimeout().toNanos()));
        } catch (VirtuosoException | VerbsException e) {
            if (slot != null) {
                slot.destroy();
            }
            AddPathNak nak = new AddPathNak(m.requestId(), e.getMessage());
            send(Protocol.ADD_PATH_NAK, nak::encode);
        }
    }

    void onAddPathAck(ByteBuffer body) throws ProtocolException {
        AddPathAck m = AddPathAck.decode(body);
        PendingAdd p = pendingAdds.remove(m.requestId());
        if (p == null) {
            throw new ProtocolException("ADD_PATH_ACK for unknown request " + m.requestId());
        }
        PathSlot slot = p.slot();
        slot.remoteQpn = m.qpn();
        slot.remotePsn = m.psn();
        slot.remoteUdpPort = m.udpPort();
        slot.mtu = Math.min(options.mtu(), m.mtu());
        try {
            QpBuilder.connect(slot, options);
        } catch (VerbsException e) {
            slot.destroy();
            p.result().completeExceptionally(new VirtuosoException(Reason.VERBS, "cannot connect the new QP: "
                    + e.getMessage(), e));
            return;
        }
        addEstablished(slot);
        send(Protocol.PATH_READY, new PathRef(slot.qp.qpNum())::encode);
        decomposition.pathsChanged();
        p.result().complete(slot.id);
    }

    void onAddPathNak(ByteBuffer body) throws ProtocolException {
        AddPathNak m = AddPathNak.decode(body);
        PendingAdd p = pendingAdds.remove(m.requestId());
        if (p == null) {
            throw new ProtocolException("ADD_PATH_NAK for unknown request " + m.requestId());
        }
        p.slot().destroy();
        p.result().completeExceptionally(new VirtuosoException(Reason.NO_PATH, "peer refused the path: " + m.reason()));
    }

    void onPathReady(ByteBuffer body) throws ProtocolException {
        int qpn = PathRef.decode(body).qpn();
        for (int p = 0; p < table.pathCount(); p++) {
            PathSlot s = byId[p];
            if (s != null && s.awaitingReady && s.remoteQpn == qpn) {
                s.awaitingReady = false;
                if (!s.removing) {
                    lifecycle.repaired(p);
                    decomposition.pathsChanged();
                }
                return;
            }
        }
        for (int i = 0; i < joining.size(); i++) {
            PathSlot s = joining.get(i).slot();
            if (s.remoteQpn == qpn) {
                joining.remove(i);
                addEstablished(s);
                decomposition.pathsChanged();
                return;
            }
        }
        throw new ProtocolException("PATH_READY for unknown QP " + Integer.toHexString(qpn));
    }

    // ---------------------------------------------------------------- removing

    /** Takes a path out of the placement and starts its removal. */
    void requestRemove(int id, CompletableFuture<Void> result, long now) {
        PathSlot s = slot(id);
        if (s == null || s.removing) {
            result.completeExceptionally(new IllegalArgumentException("no such path: " + id));
            return;
        }
        if (table.state(id) == PathState.UP && countUp() <= 1) {
            result.completeExceptionally(new VirtuosoException(Reason.NO_PATH, "path " + id
                    + " is the last usable path"));
            return;
        }
        startRemoval(s, now);
        send(Protocol.REMOVE_PATH, new PathRef(s.qp.qpNum())::encode);
        result.complete(null);
    }

    private int countUp() {
        int n = 0;
        for (int p = 0; p < table.pathCount(); p++) {
            if (table.state(p) == PathState.UP) {
                n++;
            }
        }
        return n;
    }

    private void startRemoval(PathSlot s, long now) {
        s.removing = true;
        s.dropRepair();
        s.removeDeadline = now + options.handshakeTimeout().toNanos();
        lifecycle.remove(s.id);
        decomposition.pathsChanged();
    }

    void onRemovePath(ByteBuffer body, long now) throws ProtocolException {
        PathSlot s = byRemoteQpn(PathRef.decode(body).qpn());
        if (s != null && !s.removing) {
            startRemoval(s, now);
        } else {
            controlIgnored++; // removed already, or both ends removing it at once
        }
    }

    void onPathDrained(ByteBuffer body) throws ProtocolException {
        PathSlot s = byRemoteQpn(PathRef.decode(body).qpn());
        if (s != null) {
            s.peerDrained = true;
        } else {
            controlIgnored++;
        }
    }

    private PathSlot byRemoteQpn(int qpn) {
        for (int p = 0; p < table.pathCount(); p++) {
            if (byId[p] != null && byId[p].remoteQpn == qpn && !byId[p].destroyed) {
                return byId[p];
            }
        }
        return null;
    }

    /**
     * @return true while {@link #duty} has a timer running (an addition, a removal, a repair): the
     *     engine then keeps ticking the connection; otherwise it may sleep until an event
     */
    boolean timersPending() {
        if (!pendingAdds.isEmpty() || !joining.isEmpty()) {
            return true;
        }
        for (int p = 0; p < table.pathCount(); p++) {
            PathSlot s = byId[p];
            if (s != null && !s.destroyed && (s.removing || s.repairQp != null || s.awaitingReady
                    || table.state(p) == PathState.RECOVERING)) {
                return true;
            }
        }
        return false;
    }

    /** @return control frames about a path or request no longer here (counted, then dropped) */
    long controlIgnored() {
        return controlIgnored;
    }

    /** @return NAKs to the peer the control channel had no room for */
    long answersUnsent() {
        return answersUnsent;
    }

    /** @return paths the peer added but never confirmed with PATH_READY within the handshake timeout */
    long joinsExpired() {
        return joinsExpired;
    }

    /** Timeouts of additions, progress of removals, repairs of failed paths. @return actions taken */
    int duty(long now) {
        int work = repairDuty(now);
        if (!pendingAdds.isEmpty()) {
            var it = pendingAdds.values().iterator();
            while (it.hasNext()) {
                PendingAdd p = it.next();
                if (now - p.deadline() > 0) {
                    it.remove();
                    p.slot().destroy();
                    p.result().completeExceptionally(new VirtuosoException(Reason.TIMEOUT,
                            "peer did not answer ADD_PATH in " + options.handshakeTimeout().toMillis() + " ms"));
                    work++;
                }
            }
        }
        for (int i = joining.size() - 1; i >= 0; i--) {
            if (now - joining.get(i).deadline() > 0) {
                // the peer acknowledged nothing: its QP must not stay connected, nor its slot taken
                PathSlot slot = joining.remove(i).slot();
                LOG.log(System.Logger.Level.WARNING, "path the peer added (our QP " + Integer.toHexString(slot.qp.qpNum())
                        + ") got no PATH_READY in " + options.handshakeTimeout().toMillis() + " ms: destroyed");
                slot.destroy();
                joinsExpired++;
                work++;
            }
        }
        for (int p = 0; p < table.pathCount(); p++) {
            PathSlot s = byId[p];
            if (s == null || !s.removing || s.destroyed) {
                continue;
            }
            if (!s.drainedSent && table.inFlightChunks(p) == 0) {
                s.drainedSent = send(Protocol.PATH_DRAINED, new PathRef(s.qp.qpNum())::encode);
                work++;
            }
            if ((s.drainedSent && s.peerDrained) || now - s.removeDeadline > 0) {
                QpBuilder.toError(s.qp);
                decomposition.abandonPath(p);
                events.pathAbandoned(p);
                s.destroy();
                // both sides drained (or the deadline passed): the peer destroys its end as well; no
                // message may wait for this path any longer
                decomposition.pathFenced(p);
                // nothing of the old QP is in flight any more (chunks and probes released): a later
                // addition may take the slot
                table.release(p);
                work++;
            }
        }
        return work;
    }

    // ---------------------------------------------------------------- statistics and teardown

    List<PathStats> stats() {
        List<PathStats> out = new ArrayList<>(table.pathCount());
        for (int p = 0; p < table.pathCount(); p++) {
            PathSlot s = byId[p];
            long retx = -1;
            if (s != null && !s.destroyed) {
                try {
                    retx = s.qp.counters().get(VerbsCounter.RETRANSMITTED_PACKETS);
                } catch (RuntimeException e) {
                    retx = -1;
                }
            }
            out.add(new PathStats(p, s == null ? null : s.local, s == null ? null : s.remote, table.state(p),
                    table.completedBytes(p), table.chunksCompleted(p), table.chunksFailed(p), table.inFlightBytes(p),
                    table.estimatedRate(p), table.probedCapacity(p), table.smoothedLatencyNanos(p), retx));
        }
        return out;
    }

    /** Destroys every QP (pending additions included) and fails pending additions. */
    void closeAll(String reason) {
        for (PendingAdd p : pendingAdds.values()) {
            p.slot().destroy();
            p.result().completeExceptionally(new VirtuosoException(Reason.CLOSED, reason));
        }
        pendingAdds.clear();
        for (Joining j : joining) {
            j.slot().destroy();
        }
        joining.clear();
        lifecycle.closeAll();
        for (int p = 0; p < table.pathCount(); p++) {
            if (byId[p] != null) {
                byId[p].destroy();
            }
        }
    }

    private boolean send(int type, Consumer<ByteBuffer> encoder) {
        ByteBuffer b = writer.claim();
        if (b == null) {
            return false;
        }
        encoder.accept(b);
        writer.commit(type, b);
        return true;
    }
}
