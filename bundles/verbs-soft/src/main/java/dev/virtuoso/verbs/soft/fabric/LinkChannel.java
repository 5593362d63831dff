package dev.virtuoso.verbs.soft.fabric;

import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * One direction of a {@link FabricLink}: its token bucket, tail-drop queue, loss and reorder
 * draws, and counters. Senders of several devices may share a direction, so admission is
 * synchronized per direction (short, uncontended in the common one-sender case).
 */
public final class LinkChannel {
    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final FabricLink link;
    private final String from;
    private final String to;
    private final AtomicLongArray counters = new AtomicLongArray(LinkCounter.values().length);
    /** Packets of this direction waiting in the scheduler: while > 0 nothing may bypass it. */
    final AtomicInteger scheduled = new AtomicInteger();
    private volatile int epoch;
    private volatile boolean up = true;

    // guarded by this
    private LinkSpec spec;
    private long burstNanos;
    /** GCRA theoretical arrival time: when the bucket would be refilled to empty backlog. */
    private long tat;
    private long serializationRemainder;
    private long[] departures = new long[0];
    private int departuresHead;
    private int departuresCount;
    private final SplittableRandom lossRandom;
    private final SplittableRandom reorderRandom;

    LinkChannel(FabricLink link, String from, String to, LinkSpec spec, long seed) {
        this.link = link;
        this.from = from;
        this.to = to;
        this.lossRandom = new SplittableRandom(seed);
        this.reorderRandom = new SplittableRandom(seed ^ 0x5DEECE66DL);
        configure(spec);
    }

    /** @return the sending end (host name or address) */
    public String from() {
        return from;
    }

    /** @return the receiving end (host name or address) */
    public String to() {
        return to;
    }

    /** @return the link this direction belongs to */
    public FabricLink link() {
        return link;
    }

    /**
     * @param counter which
     * @return current value
     */
    public long counter(LinkCounter counter) {
        return counters.get(counter.ordinal());
    }

    /** @return every counter, in enum order */
    public Map<LinkCounter, Long> snapshot() {
        Map<LinkCounter, Long> m = new EnumMap<>(LinkCounter.class);
        for (LinkCounter c : LinkCounter.values()) {
            m.put(c, counter(c));
        }
        return m;
    }

    synchronized void configure(LinkSpec newSpec) {
        spec = newSpec;
        burstNanos = newSpec.rateBitsPerSecond() == 0 ? 0
                : newSpec.burstBytes() * 8 * NANOS_PER_SECOND / newSpec.rateBitsPerSecond();
        if (newSpec.queuePackets() != departures.length) {
            departures = new long[newSpec.queuePackets()];
            departuresHead = 0;
            departuresCount = 0;
        }
    }

    synchronized LinkSpec spec() {
        return spec;
    }

    void setUp(boolean isUp) {
        if (!isUp) {
            epoch++;
        }
        up = isUp;
    }

    boolean isUp() {
        return up;
    }

    int epoch() {
        return epoch;
    }

    void count(LinkCounter counter) {
        counters.incrementAndGet(counter.ordinal());
    }

    void delivered(int bytes) {
        counters.incrementAndGet(LinkCounter.DELIVERED_PACKETS.ordinal());
        counters.addAndGet(LinkCounter.DELIVERED_BYTES.ordinal(), bytes);
    }

    /**
     * Runs one packet through the queue, rate limiter, loss and reorder draws, counting it.
     *
     * @param bytes datagram length
     * @param now System.nanoTime of the send
     * @return the delivery time, or -1 if the packet is dropped (already counted)
     */
    synchronized long admit(int bytes, long now) {
        counters.incrementAndGet(LinkCounter.OFFERED_PACKETS.ordinal());
        counters.addAndGet(LinkCounter.OFFERED_BYTES.ordinal(), bytes);
        if (!up) {
            count(LinkCounter.DROPPED_DOWN);
            return -1;
        }
        long departure = now;
        long serialization = 0;
        long rate = spec.rateBitsPerSecond();
        if (rate > 0) {
            if (tat < now) {
                tat = now;
            }
            departure = Math.max(now, tat - burstNanos);
            if (queueFull(bytes, departure - now, now, rate)) {
                count(LinkCounter.DROPPED_TAIL);
                return -1;
            }
            long bitNanos = bytes * 8 * NANOS_PER_SECOND + serializationRemainder;
            serialization = bitNanos / rate;
            serializationRemainder = bitNanos % rate;
            tat += serialization;
            if (departures.length > 0) {
                departures[(departuresHead + departuresCount) % departures.length] = departure;
                departuresCount++;
            }
        }
        if (spec.loss() > 0 && lossRandom.nextDouble() < spec.loss()) {
            count(LinkCounter.DROPPED_LOSS);
            return -1;
        }
        long deliverAt = departure + serialization + spec.delayNanos();
        if (spec.reorder() > 0 && reorderRandom.nextDouble() < spec.reorder()) {
            count(LinkCounter.REORDERED_PACKETS);
            deliverAt += spec.reorderDelayNanos();
        }
        return deliverAt;
    }

    private boolean queueFull(int bytes, long backlogNanos, long now, long rate) {
        if (departures.length > 0) {
            while (departuresCount > 0 && departures[departuresHead] <= now) {
                departuresHead = (departuresHead + 1) % departures.length;
                departuresCount--;
            }
            return departuresCount >= departures.length;
        }
        long limit = spec.queueBytes();
        // double: backlog x rate overflows a long for long backlogs on fast links
        return limit > 0 && (double) backlogNanos * rate / (8.0 * NANOS_PER_SECOND) + bytes > limit;
    }

    @Override
    public String toString() {
        return from + "->" + to;
    }
}
