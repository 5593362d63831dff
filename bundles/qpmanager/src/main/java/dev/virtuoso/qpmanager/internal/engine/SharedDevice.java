package dev.virtuoso.qpmanager.internal.engine;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * One device opened by one engine agent and shared by all of that agent's connections on it: one
 * context and one completion channel, on which every connection's CQ reports (verbs lets many CQs
 * of a context share a channel). Its thread ({@code virtuoso-cqev-<agent>-<device>}) waits on the
 * channel and wakes the connection whose CQ fired. Counted: the last connection to release it
 * closes it, so an agent without connections holds no device and no event thread.
 *
 * <p>It also holds the probe memory its connections share (each registers it in its own PD): a
 * connection's probe scratch is written only by the peer's probes and read by nobody, and its
 * probes' source is read by the RNIC only; sharing both saves every connection end their pages
 * ({@link Setup#PROBE_SCRATCH_BYTES} each, first touched at allocation). Two buffers, so bytes a
 * peer writes never become the payload of a probe to another peer.
 */
final class SharedDevice {
    /** Longest wait on the channel; closing the channel wakes the waiter at once anyway. */
    private static final long EVENT_WAIT_MILLIS = 1000;
    private static final System.Logger LOG = System.getLogger(SharedDevice.class.getName());

    final IbvContext context;
    final IbvCompChannel channel;
    final IbvDeviceAttr attributes;
    /** Source of every probe of this agent's connections on the device: never written. */
    final ByteBuffer probeSource = ByteBuffer.allocateDirect(Setup.PROBE_SCRATCH_BYTES);
    /** Target of the peers' probes (the advertised scratch region of every connection): never read. */
    final ByteBuffer probeTarget = ByteBuffer.allocateDirect(Setup.PROBE_SCRATCH_BYTES);
    private final Map<IbvCq, ConnectionEngine> byCq = new ConcurrentHashMap<>();
    private final Thread thread;
    private final AtomicLong events;
    private volatile boolean running = true;
    /** Guarded by the agent's device table. */
    int references;

    private SharedDevice(IbvContext context, IbvCompChannel channel, IbvDeviceAttr attributes, String threadName,
            AtomicLong events) {
        this.events = events;
        this.context = context;
        this.channel = channel;
        this.attributes = attributes;
        this.thread = new Thread(this::awaitEvents, threadName);
        thread.setDaemon(true);
    }

    /** @param events counts the completion events this device's thread hands on (its owner's total) */
    static SharedDevice open(VerbsProvider provider, String device, String threadName, AtomicLong events)
            throws VirtuosoException {
        IbvContext ctx;
        try {
            ctx = provider.openDevice(device);
        } catch (VerbsException e) {
            throw new VirtuosoException(Reason.PROVIDER_UNAVAILABLE, "cannot open device "
                    + (device == null ? "(first)" : device) + " of provider " + provider.name() + ": "
                    + e.getMessage(), e);
        }
        try {
            SharedDevice d = new SharedDevice(ctx, ctx.createCompChannel(), ctx.queryDevice(), threadName, events);
            d.thread.start();
            return d;
        } catch (VerbsException | RuntimeException e) {
            ctx.close();
            throw new VirtuosoException(Reason.VERBS, "cannot create a completion channel: " + e.getMessage(), e);
        }
    }

    /** Events of {@code cq} wake {@code engine} from now on. */
    void listen(IbvCq cq, ConnectionEngine engine) {
        byCq.put(cq, engine);
    }

    void forget(IbvCq cq) {
        byCq.remove(cq);
    }

    private void awaitEvents() {
        while (running) {
            try {
                IbvCq fired = channel.getCqEvent(EVENT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                if (fired != null) {
                    fired.ackCqEvents(1);
                    events.incrementAndGet();
                    ConnectionEngine e = byCq.get(fired);
                    if (e != null) {
                        e.completionEvent();
                    }
                }
            } catch (VerbsException | RuntimeException | InterruptedException e) {
                if (running) {
                    // the device failed: its connections still run on their timers while work is in flight
                    LOG.log(System.Logger.Level.WARNING, Thread.currentThread().getName()
                            + ": completion channel failed; its connections get no more completion events", e);
                }
                return;
            }
        }
    }

    /** Closes the channel (waking the event thread), waits for the thread, closes the context. */
    void close() {
        running = false;
        channel.close();
        if (thread != Thread.currentThread()) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        context.close();
    }

    boolean eventThreadAlive() {
        return thread.isAlive();
    }
}
