package dev.virtuoso.verbs.soft.fabric;

import java.util.EnumMap;
import java.util.Map;

/**
 * An emulated full-duplex link between two addresses (one path) or two hosts (every address pair
 * of the two hosts without a link of its own shares it). Each direction has its own queue and rate
 * limiter ({@link LinkChannel}); properties and up/down state apply to both.
 *
 * <p>Thread-safe: tests and the launcher change it at runtime while engines send.
 */
public final class FabricLink {
    private final String name;
    private final String endA;
    private final String endB;
    private final LinkChannel aToB;
    private final LinkChannel bToA;

    FabricLink(String endA, String endB, LinkSpec spec, long seed) {
        this.endA = endA;
        this.endB = endB;
        this.name = endA + "-" + endB;
        this.aToB = new LinkChannel(this, endA, endB, spec, seed);
        this.bToA = new LinkChannel(this, endB, endA, spec, Long.rotateLeft(seed, 17) ^ 0x9E3779B97F4A7C15L);
        if (spec.down()) {
            down();
        }
    }

    /** @return {@code endA-endB} */
    public String name() {
        return name;
    }

    /** @return the first end (host name or address) as given when the link was made */
    public String endA() {
        return endA;
    }

    /** @return the second end */
    public String endB() {
        return endB;
    }

    /** @return direction from {@link #endA()} to {@link #endB()} */
    public LinkChannel aToB() {
        return aToB;
    }

    /** @return direction from {@link #endB()} to {@link #endA()} */
    public LinkChannel bToA() {
        return bToA;
    }

    /** @return the current properties */
    public LinkSpec spec() {
        return aToB.spec();
    }

    /**
     * Changes rate, delay, loss, queue and reorder at runtime; packets already in flight keep
     * their delivery times. The {@link LinkSpec#down()} flag is ignored here: use {@link #down()}.
     *
     * @param spec new properties
     */
    public synchronized void configure(LinkSpec spec) {
        aToB.configure(spec);
        bToA.configure(spec);
    }

    /** Takes the link down: packets sent meanwhile and packets in flight are dropped. */
    public synchronized void down() {
        aToB.setUp(false);
        bToA.setUp(false);
    }

    /** Brings the link back up. */
    public synchronized void up() {
        aToB.setUp(true);
        bToA.setUp(true);
    }

    /** @return true while the link is up */
    public boolean isUp() {
        return aToB.isUp();
    }

    /**
     * @param counter which
     * @return the sum over both directions
     */
    public long counter(LinkCounter counter) {
        return aToB.counter(counter) + bToA.counter(counter);
    }

    /** @return every counter summed over both directions, in enum order */
    public Map<LinkCounter, Long> snapshot() {
        Map<LinkCounter, Long> m = new EnumMap<>(LinkCounter.class);
        for (LinkCounter c : LinkCounter.values()) {
            m.put(c, counter(c));
        }
        return m;
    }

    @Override
    public String toString() {
        return "link " + name + " " + spec() + (isUp() ? "" : " (down)");
    }
}
