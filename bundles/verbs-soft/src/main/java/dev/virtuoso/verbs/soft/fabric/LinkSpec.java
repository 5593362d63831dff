package dev.virtuoso.verbs.soft.fabric;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Properties of one emulated link, the same in both directions (each direction has its own queue
 * and token bucket). Immutable; change a live link with {@link FabricLink#configure}.
 *
 * <p>Text form, as in {@link FabricSpec}: space-separated {@code key=value} words, e.g.
 * {@code rate=100m delay=1ms loss=0.01 queue=64k reorder=0.02 reorder-delay=500us}:
 * <ul>
 * <li>{@code rate}: bits/s with optional k/m/g/t (decimal) and optional {@code bit}/{@code bps};
 * {@code unlimited} or {@code 0} for no limit (default)</li>
 * <li>{@code burst}: token bucket depth in bytes (default 0: packets leave at line rate)</li>
 * <li>{@code delay}: one-way propagation delay, {@code 0} or a number with ns/us/ms/s</li>
 * <li>{@code loss}: random loss probability, {@code 0.01} or {@code 1%}</li>
 * <li>{@code queue}: tail-drop limit of the queue waiting for the rate limiter, packets
 * ({@code 100p}) or bytes ({@code 65536}, {@code 64k}, {@code 1m}: binary multiples), or
 * {@code unlimited}; default 1000 packets, as a Linux txqueuelen</li>
 * <li>{@code reorder}: probability that a packet is held back by {@code reorder-delay}
 * (default 1ms), so later packets overtake it</li>
 * <li>{@code down}: the link starts down</li>
 * </ul>
 *
 * @param rateBitsPerSecond 0 for unlimited
 * @param burstBytes token bucket depth
 * @param delayNanos propagation delay
 * @param loss loss probability in [0, 1]
 * @param queuePackets tail-drop limit in packets, 0 for none
 * @param queueBytes tail-drop limit in bytes, 0 for none
 * @param reorder reorder probability in [0, 1]
 * @param reorderDelayNanos extra delay of a reordered packet
 * @param down whether the link starts down
 */
public record LinkSpec(long rateBitsPerSecond, long burstBytes, long delayNanos, double loss,
        int queuePackets, long queueBytes, double reorder, long reorderDelayNanos, boolean down) {

    /** Default queue limit in packets. */
    public static final int DEFAULT_QUEUE_PACKETS = 1000;
    /** Default extra delay of reordered packets. */
    public static final long DEFAULT_REORDER_DELAY_NANOS = 1_000_000L;
    /** Unlimited rate, no delay, no loss, default queue, up. */
    public static final LinkSpec UNLIMITED = new LinkSpec(0, 0, 0, 0, DEFAULT_QUEUE_PACKETS, 0, 0,
            DEFAULT_REORDER_DELAY_NANOS, false);

    private static final Pattern RATE = Pattern.compile("(\\d+(?:\\.\\d+)?)([kmgt]?)(bit|bps|b/s)?");
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|ms|s)");
    private static final Pattern PROBABILITY = Pattern.compile("(\\d+(?:\\.\\d+)?)(%?)");
    private static final Pattern PACKETS = Pattern.compile("(\\d+)(p|pkt|pkts|packets)");
    private static final Pattern BYTES = Pattern.compile("(\\d+)(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

    /** Validates ranges. */
    public LinkSpec {
        if (rateBitsPerSecond < 0 || burstBytes < 0 || delayNanos < 0 || queuePackets < 0
                || queueBytes < 0 || reorderDelayNanos < 0) {
            throw new IllegalArgumentException("link values must not be negative");
        }
        if (!(loss >= 0 && loss <= 1) || !(reorder >= 0 && reorder <= 1)) {
            throw new IllegalArgumentException("loss and reorder are probabilities in [0, 1]");
        }
    }

    /**
     * Parses the text form (see the type description); unspecified values keep their defaults.
     *
     * @param text e.g. {@code "rate=1g delay=100us"}; empty for {@link #UNLIMITED}
     * @return the spec
     * @throws IllegalArgumentException naming the offending word and what was expected
     */
    public static LinkSpec parse(String text) {
        return parse(text.trim().isEmpty() ? new String[0] : text.trim().split("\\s+"), 0);
    }

    /** Parses {@code words[from..]}. */
    static LinkSpec parse(String[] words, int from) {
        long rate = 0;
        long burst = 0;
        long delay = 0;
        double loss = 0;
        int queuePackets = DEFAULT_QUEUE_PACKETS;
        long queueBytes = 0;
        double reorder = 0;
        long reorderDelay = DEFAULT_REORDER_DELAY_NANOS;
        boolean down = false;
        for (int i = from; i < words.length; i++) {
            String word = words[i];
            String lower = word.toLowerCase(Locale.ROOT);
            if (lower.equals("down") || lower.equals("up")) {
                down = lower.equals("down");
                continue;
            }
            int eq = lower.indexOf('=');
            if (eq <= 0 || eq == lower.length() - 1) {
                throw new IllegalArgumentException("'" + word
                        + "' is not key=value (keys: rate, burst, delay, loss, queue, reorder,"
                        + " reorder-delay; or the word down)");
            }
            String key = lower.substring(0, eq);
            String value = lower.substring(eq + 1);
            switch (key) {
                case "rate" -> rate = parseRate(value);
                case "burst" -> burst = parseBytes(key, value);
                case "delay" -> delay = parseDuration(key, value);
                case "loss" -> loss = parseProbability(key, value);
                case "queue" -> {
                    Matcher p = PACKETS.matcher(value);
                    if (value.equals("unlimited")) {
                        queuePackets = 0;
                        queueBytes = 0;
                    } else if (p.matches()) {
                        queuePackets = positiveInt(key, p.group(1));
                        queueBytes = 0;
                    } else {
                        queueBytes = parseBytes(key, value);
                        queuePackets = 0;
                        if (queueBytes == 0) {
                            throw new IllegalArgumentException("queue: must be > 0 or unlimited");
                        }
                    }
                }
                case "reorder" -> reorder = parseProbability(key, value);
                case "reorder-delay", "reorder_delay" -> reorderDelay = parseDuration(key, value);
                default -> throw new IllegalArgumentException("unknown link key '" + key
                        + "' (keys: rate, burst, delay, loss, queue, reorder, reorder-delay)");
            }
        }
        return new LinkSpec(rate, burst, delay, loss, queuePackets, queueBytes, reorder,
                reorderDelay, down);
    }

    static long parseRate(String value) {
        if (value.equals("unlimited") || value.equals("0")) {
            return 0;
        }
        Matcher m = RATE.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException("rate: '" + value
                    + "' is not a rate in bits/s (examples: 100m, 1.5g, 10gbit, unlimited)");
        }
        double bits = Double.parseDouble(m.group(1)) * switch (m.group(2)) {
            case "k" -> 1e3;
            case "m" -> 1e6;
            case "g" -> 1e9;
            case "t" -> 1e12;
            default -> 1;
        };
        if (bits < 1000) {
            throw new IllegalArgumentException("rate: '" + value + "' is below 1 kbit/s");
        }
        return Math.round(bits);
    }

    static long parseDuration(String key, String value) {
        if (value.equals("0")) {
            return 0;
        }
        Matcher m = DURATION.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException(key + ": '" + value
                    + "' is not a duration (examples: 0, 250us, 1ms, 1.5ms, 2s)");
        }
        double nanos = Double.parseDouble(m.group(1)) * switch (m.group(2)) {
            case "ns" -> 1;
            case "us" -> 1e3;
            case "ms" -> 1e6;
            default -> 1e9;
        };
        return Math.round(nanos);
    }

    static double parseProbability(String key, String value) {
        Matcher m = PROBABILITY.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException(key + ": '" + value
                    + "' is not a probability (examples: 0.01, 1%)");
        }
        double p = Double.parseDouble(m.group(1)) / (m.group(2).isEmpty() ? 1 : 100);
        if (p > 1) {
            throw new IllegalArgumentException(key + ": '" + value + "' is above 1 (100%)");
        }
        return p;
    }

    static long parseBytes(String key, String value) {
        Matcher m = BYTES.matcher(value);
        if (!m.matches()) {
            throw new IllegalArgumentException(key + ": '" + value
                    + "' is not a size (examples: 100p for packets, 65536, 64k, 1m)");
        }
        long unit = switch (m.group(2) == null ? "" : m.group(2)) {
            case "k", "kb", "kib" -> 1L << 10;
            case "m", "mb", "mib" -> 1L << 20;
            case "g", "gb", "gib" -> 1L << 30;
            default -> 1;
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(key + ": '" + value + "' is too large", e);
        }
    }

    private static int positiveInt(String key, String digits) {
        try {
            int n = Integer.parseInt(digits);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through to the message below
        }
        throw new IllegalArgumentException(key + ": '" + digits + "' must be 1.." + Integer.MAX_VALUE);
    }

    /** @return this spec with another rate (0: unlimited) */
    public LinkSpec withRate(long bitsPerSecond) {
        return new LinkSpec(bitsPerSecond, burstBytes, delayNanos, loss, queuePackets, queueBytes,
                reorder, reorderDelayNanos, down);
    }

    /** @return this spec with another propagation delay */
    public LinkSpec withDelayNanos(long nanos) {
        return new LinkSpec(rateBitsPerSecond, burstBytes, nanos, loss, queuePackets, queueBytes,
                reorder, reorderDelayNanos, down);
    }

    /** @return this spec with another loss probability */
    public LinkSpec withLoss(double probability) {
        return new LinkSpec(rateBitsPerSecond, burstBytes, delayNanos, probability, queuePackets,
                queueBytes, reorder, reorderDelayNanos, down);
    }

    /** @return the text form, parseable by {@link #parse(String)} */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        sb.append("rate=").append(rateBitsPerSecond == 0 ? "unlimited" : Long.toString(rateBitsPerSecond));
        if (burstBytes > 0) {
            sb.append(" burst=").append(burstBytes);
        }
        sb.append(" delay=").append(delayNanos == 0 ? "0" : delayNanos + "ns");
        if (loss > 0) {
            sb.append(" loss=").append(loss);
        }
        sb.append(" queue=").append(queuePackets > 0 ? queuePackets + "p"
                : queueBytes > 0 ? Long.toString(queueBytes) : "unlimited");
        if (reorder > 0) {
            sb.append(" reorder=").append(reorder).append(" reorder-delay=").append(reorderDelayNanos)
                    .append("ns");
        }
        if (down) {
            sb.append(" down");
        }
        return sb.toString();
    }
}
