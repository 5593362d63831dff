package dev.virtuoso.verbs.soft.fabric.api;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Controls a running in-process fabric. Links are named by their ends joined with {@code -}:
 * two addresses ({@code 10.0.0.1-10.0.0.2}, one path) or two host names ({@code A-B}); either
 * order is accepted. Link properties use the text form of the fabric spec, e.g.
 * {@code rate=100m delay=1ms loss=0.01 queue=100p reorder=0.01 reorder-delay=1ms}.
 *
 * <p>Thread-safe; changes apply to packets sent afterwards (a link going down also drops the
 * packets in flight on it).
 */
@ProviderType
public interface FabricControl {

    /** Service property carrying {@link #name()}. */
    String FABRIC_NAME_PROPERTY = "virtuoso.fabric.name";

    /** @return the fabric's name */
    String name();

    /** @return host names, in declaration order */
    List<String> hosts();

    /**
     * @param host a host name
     * @return its addresses (literals), in declaration order
     * @throws IllegalArgumentException if there is no such host
     */
    List<String> addresses(String host);

    /** @return the names of all links, including those made on first use by {@code link *} */
    List<String> links();

    /**
     * @param link a link name
     * @return its current properties in text form
     * @throws IllegalArgumentException if there is no such link
     */
    String spec(String link);

    /**
     * Changes a link's properties; unspecified keys take their defaults (not the old values).
     *
     * @param link a link name
     * @param linkSpec e.g. {@code rate=200m delay=500us}
     * @throws IllegalArgumentException for an unknown link or invalid text (the message says why)
     */
    void configure(String link, String linkSpec);

    /**
     * Takes a link down: everything sent over it, and everything in flight on it, is dropped.
     *
     * @param link a link name
     * @throws IllegalArgumentException if there is no such link
     */
    void down(String link);

    /**
     * Brings a link back up.
     *
     * @param link a link name
     * @throws IllegalArgumentException if there is no such link
     */
    void up(String link);

    /**
     * @param link a link name
     * @return true while the link is up
     * @throws IllegalArgumentException if there is no such link
     */
    boolean isUp(String link);

    /**
     * Counters of a link, both directions summed: {@code OFFERED_PACKETS}, {@code OFFERED_BYTES},
     * {@code DELIVERED_PACKETS}, {@code DELIVERED_BYTES}, {@code REORDERED_PACKETS},
     * {@code DROPPED_TAIL}, {@code DROPPED_LOSS}, {@code DROPPED_DOWN},
     * {@code DROPPED_NO_ENDPOINT}, {@code DROPPED_RX_OVERFLOW}.
     *
     * @param link a link name
     * @return counter name to value, in that order
     * @throws IllegalArgumentException if there is no such link
     */
    Map<String, Long> counters(String link);
}
