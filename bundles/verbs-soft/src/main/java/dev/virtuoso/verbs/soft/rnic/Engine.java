package dev.virtuoso.verbs.soft.rnic;

import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.util.DutyClaim;
import dev.virtuoso.util.IdleShift;
import dev.virtuoso.util.InvokerLease;
import dev.virtuoso.util.SlotRing;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.packet.Icrc;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.RocePacket;
import dev.virtuoso.verbs.soft.wire.DatagramHandler;
import dev.virtuoso.verbs.soft.wire.Wire;
import dev.virtuoso.verbs.soft.wire.WirePort;

/**
 * The device's engine: one thread that owns every QP of the device and runs a duty cycle (Aeron
 * style; or CQ pollers run it, below): control commands, receive a batch from every port, then
 * for every active QP pick up posted WRs, run timers and transmit within the window. A QP is
 * active from an event (a doorbell, a packet, a command) until a visit does no work and leaves it
 * nothing to do later (nothing unsent, no timer, no response due), so a cycle costs the QPs with
 * work, not every QP of the device: a
 * device with thousands of idle QPs costs nothing. Posting threads ring a QP's doorbell once (a
 * flag) and queue it in a bounded ring; if the ring is full they set a flag that makes the engine
 * visit every QP once. Control commands are also served between ports and
 * between QPs: a caller of a verb (modify, create, destroy) waits for its command, and with many
 * busy QPs a whole cycle takes milliseconds (a core engine repairing one path must not stall the
 * others for that long). When a cycle does no work it spins briefly, then yields for a while if so
 * configured ({@link SoftRnicConfig#yieldNanos()}), then parks in {@link Wire#await} until a
 * datagram, a doorbell or the next timer; both phases shrink while idle gaps outlast them
 * ({@link IdleShift}). A retransmit timer
 * that has run out first drains the ports ({@link #drainPorts}) and is then checked again.
 *
 * <p>With {@link SoftRnicConfig#invokeOnPoll()} a thread that finds one of the device's CQs empty
 * runs a duty cycle itself ({@link #invoke}, Aeron's agent invoker), so a packet crosses no hand-off
 * between this thread and the poller; while pollers keep doing so the engine thread stands back
 * (parks, without spinning beside them) until their lease runs out or one arms a CQ to block
 * ({@link #handBack}). Whichever thread runs a cycle holds the claim, so the QPs' state still has
 * one owner at a time and the claim's release publishes it to the next.
 *
 * <p>Nothing thrown by packet processing escapes: it is counted as malformed input.
 */
final class Engine implements Runnable, DatagramHandler {
    private static final System.Logger LOG = System.getLogger(Engine.class.getName());
    private static final long BLOCKED_PARK_NANOS = 20_000L;
    /** A port that refuses every send for this long has its packets treated as lost. */
    private static final long BLOCKED_LOSS_NANOS = 2_000_000L;
    /** Receive batches per port that a timer's final check takes at most (a flood ends it). */
    private static final int DRAIN_BATCHES = 16;
    /** How long the engine thread stands back after a poller ran a duty cycle. */
    static final long INVOKER_LEASE_NANOS = 1_000_000L;
    /**
     * Polls (cycles run or denied by another's) pollers must have made per lease for the engine
     * thread to stand back: a thread that polls only now and then would otherwise leave the
     * device's other QPs waiting for it.
     */
    static final int MIN_INVOKES_PER_LEASE = 20;

    /** A slot of {@link #rung}. */
    private static final class QpRef {
        SoftQp qp;
    }

    final SoftRnic rnic;
    final PacketBuilder builder = new PacketBuilder();
    final int txBurst;
    /** Set during a cycle when a send was refused (back-pressure): park only briefly. */
    boolean txBlocked;

    private final Wire wire;
    private final WirePort[] ports;
    private final long[] portBlockedSince;
    private final Icrc icrc = new Icrc();
    private final RocePacket packet = new RocePacket();
    private final AddressBytes addressBytes = new AddressBytes();
    private final ConcurrentLinkedQueue<FutureTask<?>> commands = new ConcurrentLinkedQueue<>();
    private final int rxBatch;
    private final boolean icrcCheck;
    private final long spinNanos;
    private final long yieldNanos;
    private final long maxParkNanos;
    private SoftQp[] qps = new SoftQp[0];
    /** QPs whose doorbell rang, queued by posting threads (each at most once: {@link SoftQp#ring()}). */
    private final SlotRing<QpRef> rung;
    /** A posting thread found {@link #rung} full: visit every QP. */
    private volatile boolean rungOverflow;
    /** QPs visited each cycle: {@code active[0..activeCount)}, each with {@link SoftQp#active} set. */
    private SoftQp[] active = new SoftQp[16];
    private int activeCount;
    private final IntMap<SoftQp> byNum = new IntMap<>();
    private long now;
    private volatile boolean running = true;
    private volatile boolean parked;
    private volatile Thread thread;
    // ---- invokeOnPoll: pollers run duty cycles under the claim; the engine thread stands back
    private final boolean invokeOnPoll;
    /** Held by whichever thread runs a duty cycle (the engine thread or a poller). */
    private final DutyClaim claim = new DutyClaim();
    /** When the engine thread stands back for pollers. */
    private final InvokerLease lease = new InvokerLease(INVOKER_LEASE_NANOS, MIN_INVOKES_PER_LEASE);
    private volatile boolean standingBack;
    /** Duty cycles pollers ran (single writer at a time: the claim holder). */
    private final AtomicLong invokes = new AtomicLong();
    /** Polls that found another thread running a cycle (any poller). */
    private final AtomicLong deniedPolls = new AtomicLong();
    /** Times the engine thread stood back (engine thread only). */
    private final AtomicLong standBacks = new AtomicLong();
    private boolean loggedFailure;

    Engine(SoftRnic rnic, Wire wire, WirePort[] ports) {
        this.rnic = rnic;
        this.wire = wire;
        this.ports = ports.clone();
        this.portBlockedSince = new long[ports.length];
        SoftRnicConfig c = rnic.config;
        this.txBurst = c.txBurst();
        this.rxBatch = c.rxBatch();
        this.icrcCheck = c.icrcCheck();
        this.spinNanos = c.spinNanos();
        this.yieldNanos = c.yieldNanos();
        this.maxParkNanos = c.maxParkNanos();
        this.invokeOnPoll = c.invokeOnPoll();
        this.rung = new SlotRing<>(c.doorbellQueue(), i -> new QpRef());
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        long idleSince = 0;
        int shift = 0;
        try {
            while (running) {
                int work;
                if (!invokeOnPoll) {
                    work = cycle();
                } else if (standBack()) {
                    idleSince = 0;
                    continue;
                } else if (claim.claim()) {
                    try {
                        work = cycle();
                    } finally {
                        releaseClaim();
                    }
                } else {
                    work = 0; // a poller runs a cycle: idle here (spin, yield, then try to park)
                }
                long t = System.nanoTime();
                if (work > 0) {
                    if (idleSince != 0) {
                        shift = IdleShift.next(shift, t - idleSince, spinNanos + yieldNanos);
                    }
                    idleSince = 0;
                } else if (idleSince == 0) {
                    idleSince = t;
                } else if (t - idleSince < spinNanos >> shift) {
                    Thread.onSpinWait();
                } else if (t - idleSince < (spinNanos + yieldNanos) >> shift) {
                    Thread.yield();
                } else {
                    park();
                }
            }
        } catch (IOException e) {
            if (running) {
                LOG.log(System.Logger.Level.ERROR, "soft RNIC " + rnic.name() + ": wire failed", e);
            }
        } catch (RuntimeException | Error e) {
            LOG.log(System.Logger.Level.ERROR, "soft RNIC " + rnic.name() + ": engine failed", e);
        } finally {
            running = false;
            FutureTask<?> f;
            while ((f = commands.poll()) != null) {
                f.cancel(false);
            }
        }
    }

    /** Claim holder: one duty cycle (commands, every port's receive batch, doorbells, active QPs). */
    private int cycle() throws IOException {
        int work = runCommands();
        now = System.nanoTime();
        wire.pollReadiness();
        for (WirePort p : ports) {
            work += receive(p) + pendingCommands();
        }
        return work + serveDoorbells();
    }

    /** Claim holder: takes the doorbells and serves the active QPs (the end of a cycle). */
    private int serveDoorbells() {
        int work = takeDoorbells();
        now = System.nanoTime();
        txBlocked = false;
        return work + serviceActive();
    }

    // ---------------------------------------------------------------- pollers (invokeOnPoll)

    /**
     * Polling thread that found a CQ of this device empty: runs one duty cycle here unless another
     * thread is running one, and keeps the engine thread standing back. A wire failure stops the
     * engine as it would on the engine thread; nothing is thrown at the poller.
     *
     * @return work done (0 if not invokable, stopped, or another thread holds the claim)
     */
    int invoke() {
        if (!invokeOnPoll || !running) {
            return 0;
        }
        lease.renew(System.nanoTime());
        if (!claim.claim()) {
            deniedPolls.incrementAndGet();
            if (parked) {
                wire.wakeup(); // the engine thread waits in the wire holding the claim: to stand back
            }
            return 0;
        }
        try {
            invokes.lazySet(invokes.get() + 1);
            return cycle();
        } catch (IOException | RuntimeException e) {
            failedInPoller(e);
            return 0;
        } finally {
            releaseClaim();
        }
    }

    /** Poller about to block on a CQ event: the engine thread runs the cycles again from now on. */
    void handBack() {
        if (invokeOnPoll) {
            lease.handBack(thread);
        }
    }

    /** @return true if the calling thread is running a duty cycle (inside it, verbs run inline) */
    boolean inCycle() {
        return claim.heldByCurrentThread();
    }

    /** @return duty cycles pollers ran (statistics, tests) */
    long invokes() {
        return invokes.get();
    }

    /** @return true while the engine thread stands back for pollers (tests) */
    boolean standingBack() {
        return standingBack;
    }

    /** @return times the engine thread stood back for pollers (statistics, tests) */
    long standBacks() {
        return standBacks.get();
    }

    /**
     * Engine thread: while pollers keep running the cycles, parks until their lease runs out, a
     * poller hands back, or a command is queued, instead of spinning beside them.
     *
     * @return true if it stood back
     */
    private boolean standBack() {
        // polls denied count too: pollers the engine thread keeps out by running the cycles itself
        long left = lease.standBackNanos(System.nanoTime(), invokes.get() + deniedPolls.get());
        if (left == 0 || !commands.isEmpty() || !running) {
            return false;
        }
        standBacks.lazySet(standBacks.get() + 1);
        standingBack = true;
        VarHandle.fullFence(); // pairs with submit's: a command queued now unparks this thread
        if (commands.isEmpty()) {
            LockSupport.parkNanos(this, left);
        }
        standingBack = false;
        return true;
    }

    /**
     * Visits the active QPs (a QP destroyed by a command of this cycle is in ERR: its service only
     * flushes); drops those that did nothing and have nothing left to do. Events during the loop
     * (packets drained by a timer, commands) may add QPs, which are visited in this cycle too.
     */
    private int serviceActive() {
        int work = 0;
        int i = 0;
        while (i < activeCount) {
            SoftQp qp = active[i];
            qp.visits++;
            int w = qp.service(this, now);
            work += w + pendingCommands();
            if (w == 0 && !qp.needsService()) {
                qp.active = false;
                active[i] = active[--activeCount];
                active[activeCount] = null;
            } else {
                i++;
            }
        }
        return work;
    }

    /** Engine: the QP is visited from this cycle on until it has nothing to do. */
    void activate(SoftQp qp) {
        if (qp.active) {
            return;
        }
        qp.active = true;
        if (activeCount == active.length) {
            active = Arrays.copyOf(active, activeCount * 2);
        }
        active[activeCount++] = qp;
    }

    /**
     * Activates the QPs whose doorbells rang. Each is un-rung before its queues are read (the fence
     * pairs with the one in {@link #doorbell}): a WR published after this read rings again.
     */
    private int takeDoorbells() {
        int n = 0;
        if (rungOverflow) {
            rungOverflow = false;
            for (SoftQp qp : qps) {
                qp.unring();
                activate(qp);
                n++;
            }
        }
        long t;
        while ((t = rung.acquire()) >= 0) {
            QpRef ref = rung.slot(t);
            SoftQp qp = ref.qp;
            ref.qp = null;
            rung.release(t);
            qp.unring();
            activate(qp);
            n++;
        }
        if (n > 0) {
            VarHandle.fullFence();
        }
        return n;
    }

    /** @return QPs in the active set (engine thread: through a command) */
    int activeCount() {
        return activeCount;
    }

    private int receive(WirePort p) throws IOException {
        try {
            return p.receive(this, rxBatch);
        } catch (IOException e) {
            if (!running) {
                throw e;
            }
            rnic.counters.inc(VerbsCounter.DROP_RX_OVERRUN);
            return 0;
        }
    }

    /**
     * Receives what every port holds now (up to {@link #DRAIN_BATCHES} batches each), for a
     * retransmit timer about to expire: a timeout is declared only after every response that
     * arrived before the deadline was processed. After a stall of this thread the responses that
     * would have stopped the timer are usually already queued.
     */
    void drainPorts() {
        now = System.nanoTime();
        try {
            wire.pollReadiness();
        } catch (IOException e) {
            return; // the wire is closing: the duty cycle ends on its next receive
        }
        for (WirePort p : ports) {
            for (int i = 0; i < DRAIN_BATCHES; i++) {
                int got;
                try {
                    got = receive(p);
                } catch (IOException e) {
                    return; // the wire is closing: the duty cycle ends on its next receive
                }
                if (got < rxBatch) {
                    break;
                }
            }
        }
    }

    /**
     * Parks until a datagram, a doorbell, a command or the nearest timer. With {@code invokeOnPoll}
     * the engine thread holds the claim while it waits in the wire (a UDP wire's selector serves
     * one select at a time, so a poller's cycle would block in it): a poller that finds it so
     * wakes it ({@link #invoke}) and runs the cycles once it stood back.
     */
    private void park() throws IOException {
        if (invokeOnPoll && !claim.claim()) {
            return; // a poller runs a cycle now
        }
        try {
            long wait = parkNanos();
            if (wait < 0) {
                // the wire refused a send: retry soon, without a selector round trip (UDP's await
                // sleeps at least a millisecond)
                LockSupport.parkNanos(BLOCKED_PARK_NANOS);
                return;
            }
            if (wait == 0) {
                return;
            }
            parked = true;
            // a volatile write followed by the acquire reads of the queues is not ordered by the JMM:
            // without the fence this check may miss a WR whose poster then sees parked still false
            VarHandle.fullFence();
            try {
                if (commands.isEmpty() && rung.isEmpty() && !rungOverflow) {
                    wire.await(wait);
                }
            } finally {
                parked = false;
            }
        } finally {
            if (invokeOnPoll) {
                releaseClaim();
            }
        }
    }

    /**
     * Claim holder: how long the engine may park, until the nearest timer of an active QP or the
     * longest park.
     *
     * @return nanoseconds, 0 if a timer is due, -1 if the wire refused a send this cycle
     */
    private long parkNanos() {
        if (txBlocked) {
            return -1;
        }
        long t = System.nanoTime();
        long deadline = t + maxParkNanos;
        for (int i = 0; i < activeCount; i++) {
            long d = active[i].deadline();
            if (d != 0 && d - deadline < 0) {
                deadline = d;
            }
        }
        return Math.max(0, deadline - t);
    }

    /** Commands queued during the cycle, if any (a volatile read when there are none). */
    private int pendingCommands() {
        return commands.isEmpty() ? 0 : runCommands();
    }

    private int runCommands() {
        int n = 0;
        FutureTask<?> f;
        while ((f = commands.poll()) != null) {
            f.run();
            n++;
        }
        return n;
    }

    /**
     * Any thread: a WR was posted on {@code qp}. Queues the QP unless its doorbell already rang and
     * wakes the engine if it is parked. The queues publish with a release store, which a later load
     * may pass: the first fence orders the publication before the read of the QP's doorbell flag
     * (the engine fences between clearing it and reading the queues), the second the queueing
     * before the read of {@code parked} (the engine fences between setting it and checking).
     */
    void doorbell(SoftQp qp) {
        VarHandle.fullFence();
        if (qp.ring()) {
            long t = rung.claim();
            if (t >= 0) {
                rung.slot(t).qp = qp;
                rung.publish(t);
            } else {
                rungOverflow = true; // the QP stays rung: the engine's visit of every QP un-rings it
            }
            VarHandle.fullFence();
        }
        if (parked) {
            wire.wakeup();
        } else if (standingBack) {
            transmitPosted();
        }
    }

    /**
     * Poster, while pollers run the cycles: sends what the doorbells announced now, in the
     * posting thread, as a hardware doorbell starts the transfer, instead of at the next poll.
     * If another thread runs a cycle, that one may be past taking the doorbells and its thread may
     * not poll again soon: the transmit is deferred to it, and it runs it after its release. From
     * inside a cycle nothing (its own service does it).
     */
    private void transmitPosted() {
        if (!running || !(claim.claim() || claim.defer())) {
            return;
        }
        try {
            transmitDoorbells();
        } finally {
            releaseClaim();
        }
    }

    /** Claim holder: sends what the doorbells announced. */
    private void transmitDoorbells() {
        try {
            serveDoorbells();
        } catch (RuntimeException e) {
            failedInPoller(e);
        }
    }

    /** Releases the claim; then, while posters deferred transmits to this holder, runs them. */
    private void releaseClaim() {
        claim.release();
        while (running && claim.claimDeferred()) {
            try {
                transmitDoorbells();
            } finally {
                claim.release();
            }
        }
    }

    /**
     * A poller's or poster's part of a cycle failed: stops the device as the engine thread's loop
     * would (a wire that fails while the device stops is not logged).
     */
    private void failedInPoller(Exception e) {
        if (e instanceof IOException && !running) {
            return;
        }
        LOG.log(System.Logger.Level.ERROR, "soft RNIC " + rnic.name()
                + (e instanceof IOException ? ": wire failed" : ": engine failed"), e);
        stop();
    }

    /** Any thread: queues a control command. */
    boolean submit(FutureTask<?> task) {
        if (!running) {
            return false;
        }
        commands.add(task);
        wire.wakeup();
        if (invokeOnPoll) {
            VarHandle.fullFence(); // pairs with standBack's: either it sees the command or we see it parked
            Thread t = thread;
            if (standingBack && t != null) {
                LockSupport.unpark(t); // the caller may be the poller, now waiting for its command
            }
        }
        if (!running && commands.remove(task)) {
            return false;
        }
        return true;
    }

    boolean isRunning() {
        return running;
    }

    /** Stops the loop; the owner joins the thread. */
    void stop() {
        running = false;
        wire.wakeup();
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t); // it may be standing back
        }
    }

    void addQp(SoftQp qp) {
        byNum.put(qp.qpNum, qp);
        qps = Arrays.copyOf(qps, qps.length + 1);
        qps[qps.length - 1] = qp;
        activate(qp);
    }

    /** Engine: forgets the QP; it is visited once more (flushing, being in ERR) if it has work. */
    void removeQp(SoftQp qp) {
        byNum.remove(qp.qpNum);
        activate(qp);
        SoftQp[] current = qps;
        for (int i = 0; i < current.length; i++) {
            if (current[i] == qp) {
                SoftQp[] shrunk = new SoftQp[current.length - 1];
                System.arraycopy(current, 0, shrunk, 0, i);
                System.arraycopy(current, i + 1, shrunk, i, current.length - i - 1);
                qps = shrunk;
                return;
            }
        }
    }

    /**
     * Finishes the packet in {@link #builder} (pad, ICRC) and sends it on the QP's path.
     *
     * @return false if the wire refused it (back-pressure): the caller tries again later. A port
     *     that keeps refusing for a while has its packets counted as lost instead, so a broken
     *     path ends in the transport's timeouts rather than a retry loop.
     */
    boolean transmit(SoftQp qp) {
        ByteBuffer b = builder.finish(icrc, qp.localIp, qp.remoteIp, qp.localPort, qp.remotePort);
        int len = b.remaining();
        int portIndex = qp.portIndex;
        boolean sent;
        try {
            sent = qp.port.send(b, qp.remote);
        } catch (IOException e) {
            sent = false; // closed port: the QP's peer will see a dead link
        }
        if (sent) {
            portBlockedSince[portIndex] = 0;
            qp.counters.inc(VerbsCounter.TX_PACKETS);
            qp.counters.add(VerbsCounter.TX_BYTES, len);
            return true;
        }
        long since = portBlockedSince[portIndex];
        if (since == 0) {
            portBlockedSince[portIndex] = now == 0 ? 1 : now;
            return false;
        }
        return now - since > BLOCKED_LOSS_NANOS;
    }

    @Override
    public void onDatagram(ByteBuffer datagram, InetSocketAddress source,
            InetSocketAddress destination) {
        int off = datagram.position();
        int len = datagram.remaining();
        SoftCounters device = rnic.counters;
        try {
            RocePacket p = packet;
            if (!p.decode(datagram, off, len)) {
                dropBeforeQp(VerbsCounter.DROP_MALFORMED, len);
                return;
            }
            if (icrcCheck && !icrcMatches(datagram, off, len, source, destination)) {
                dropBeforeQp(VerbsCounter.DROP_BAD_ICRC, len);
                return;
            }
            SoftQp qp = byNum.get(p.destQp);
            if (qp == null) {
                dropBeforeQp(VerbsCounter.DROP_UNKNOWN_QP, len);
                return;
            }
            qp.counters.inc(VerbsCounter.RX_PACKETS);
            qp.counters.add(VerbsCounter.RX_BYTES, len);
            if (!qp.onPath(source, destination)) {
                qp.counters.inc(VerbsCounter.DROP_BAD_SOURCE);
                return;
            }
            qp.onPacket(this, p, now);
            activate(qp);
        } catch (RuntimeException e) {
            device.inc(VerbsCounter.DROP_MALFORMED);
            if (!loggedFailure) {
                loggedFailure = true;
                LOG.log(System.Logger.Level.WARNING, "soft RNIC " + rnic.name()
                        + ": packet processing failed (counted as malformed; logged once)", e);
            }
        }
    }

    private void dropBeforeQp(VerbsCounter reason, int len) {
        SoftCounters device = rnic.counters;
        device.inc(VerbsCounter.RX_PACKETS);
        device.add(VerbsCounter.RX_BYTES, len);
        device.inc(reason);
    }

    private boolean icrcMatches(ByteBuffer d, int off, int len, InetSocketAddress source,
            InetSocketAddress destination) {
        if (source == null || destination == null || source.getAddress() == null
                || destination.getAddress() == null) {
            return false;
        }
        byte[] s = addressBytes.of(source.getAddress());
        byte[] t = addressBytes.of(destination.getAddress());
        if (s.length != t.length) {
            return false;
        }
        return icrc.verify(s, t, source.getPort(), destination.getPort(), d, off, len);
    }
}
