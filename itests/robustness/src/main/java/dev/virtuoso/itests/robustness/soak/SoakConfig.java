package dev.virtuoso.itests.robustness.soak;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Settings of one soak run, from {@code --key=value} arguments.
 *
 * @param duration how long the workers run
 * @param paths fabric paths (links) between the two hosts, each used by every connection
 * @param connections concurrent connections, one worker thread each
 * @param link spec of every link (soft RNIC fabric syntax), e.g. {@code loss=1% delay=50us}
 * @param seed seed of the fabric's loss draws and of the workers' choices
 * @param churn mean lifetime of a connection before it is closed and a new one made
 * @param swap interval between policy swaps (load balancer and congestion avoidance) on a connection
 *     (zero: never)
 * @param maxMessageBytes largest message of the mix (large MP_WRITE/READ/SEND)
 * @param splitThreshold MP_SENDs below this travel whole as one SEND into a slot
 * @param chunkBytes chunk size of the built-in fixed-chunk congestion avoidance
 * @param opTimeout a batch whose completions have not all arrived by then is a hang
 * @param progress interval of the progress lines and CSV samples
 * @param out directory for {@code soak-summary.json} and {@code soak-progress.csv}
 * @param zeroLengthSends whether the edge lengths of MP_SEND include 0 (as they do for MP_WRITE and
 *     MP_READ); {@code false} leaves them out, see docs/soak.md
 * @param invokeOnPoll whether the connections' engine is run by the polling worker threads (the
 *     engine group's {@code invokeOnPoll}) instead of its agents alone
 */
public record SoakConfig(Duration duration, int paths, int connections, String link, long seed, Duration churn,
        Duration swap, int maxMessageBytes, int splitThreshold, int chunkBytes, Duration opTimeout,
        Duration progress, Path out, boolean zeroLengthSends, boolean invokeOnPoll) {

    /** Defaults: the 10-minute run of issue 8. */
    public static final SoakConfig DEFAULTS = new SoakConfig(Duration.ofMinutes(10), 4, 3, "loss=1% delay=50us", 42,
            Duration.ofSeconds(20), Duration.ofSeconds(5), 2 << 20, 64 << 10, 256 << 10, Duration.ofSeconds(60),
            Duration.ofSeconds(30), Path.of("target", "soak"), true, false);

    public SoakConfig {
        LinkSpec.parse(link);
        if (duration.isNegative() || duration.isZero() || paths < 1 || paths > 16 || connections < 1
                || churn.isNegative() || churn.isZero() || swap.isNegative() || maxMessageBytes <= splitThreshold
                || splitThreshold < 64 || chunkBytes < 4096 || opTimeout.isNegative() || opTimeout.isZero()
                || progress.isNegative() || progress.isZero()) {
            throw new IllegalArgumentException("invalid soak settings: " + asMap());
        }
    }

    /**
     * @param args {@code --duration=10m --paths=4 --connections=3 --link="loss=1% delay=50us" --seed=42
     *     --churn=20s --swap=5s --max-message=2m --split=64k --chunk=256k --op-timeout=60s --progress=30s
     *     --out=target/soak --zero-length-sends=true --invoke-on-poll=false}; any subset, in any order
     * @return the defaults overridden by {@code args}
     * @throws IllegalArgumentException for an unknown key or a bad value
     */
    public static SoakConfig parse(String... args) {
        SoakConfig c = DEFAULTS;
        Duration duration = c.duration;
        int paths = c.paths;
        int connections = c.connections;
        String link = c.link;
        long seed = c.seed;
        Duration churn = c.churn;
        Duration swap = c.swap;
        int maxMessage = c.maxMessageBytes;
        int split = c.splitThreshold;
        int chunk = c.chunkBytes;
        Duration opTimeout = c.opTimeout;
        Duration progress = c.progress;
        Path out = c.out;
        boolean zeroLengthSends = c.zeroLengthSends;
        boolean invokeOnPoll = c.invokeOnPoll;
        for (String a : args) {
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("expected --key=value, got " + a);
            }
            String key = a.substring(2, eq);
            String v = a.substring(eq + 1);
            switch (key) {
                case "duration" -> duration = duration(v);
                case "paths" -> paths = Integer.parseInt(v);
                case "connections" -> connections = Integer.parseInt(v);
                case "link" -> link = v;
                case "seed" -> seed = Long.parseLong(v);
                case "churn" -> churn = duration(v);
                case "swap" -> swap = duration(v);
                case "max-message" -> maxMessage = bytes(v);
                case "split" -> split = bytes(v);
                case "chunk" -> chunk = bytes(v);
                case "op-timeout" -> opTimeout = duration(v);
                case "progress" -> progress = duration(v);
                case "out" -> out = Path.of(v);
                case "zero-length-sends" -> zeroLengthSends = bool(v);
                case "invoke-on-poll" -> invokeOnPoll = bool(v);
                default -> throw new IllegalArgumentException("unknown option --" + key);
            }
        }
        return new SoakConfig(duration, paths, connections, link, seed, churn, swap, maxMessage, split, chunk,
                opTimeout, progress, out, zeroLengthSends, invokeOnPoll);
    }

    private static boolean bool(String v) {
        if (!v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("expected true or false, got " + v);
        }
        return Boolean.parseBoolean(v);
    }

    /** @param v {@code 500ms}, {@code 30s}, {@code 10m} or plain seconds */
    static Duration duration(String v) {
        if (v.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
        }
        if (v.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
        }
        if (v.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
        }
        return Duration.ofSeconds(Long.parseLong(v));
    }

    /** @param v {@code 4096}, {@code 64k} or {@code 2m} (binary multiples) */
    static int bytes(String v) {
        String s = v.toLowerCase();
        if (s.endsWith("k")) {
            return Math.multiplyExact(Integer.parseInt(s.substring(0, s.length() - 1)), 1 << 10);
        }
        if (s.endsWith("m")) {
            return Math.multiplyExact(Integer.parseInt(s.substring(0, s.length() - 1)), 1 << 20);
        }
        return Integer.parseInt(s);
    }

    /** @return the settings by name, for the report */
    public Map<String, Object> asMap() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("durationSeconds", duration.toMillis() / 1000.0);
        m.put("paths", paths);
        m.put("connections", connections);
        m.put("link", link);
        m.put("seed", seed);
        m.put("churnSeconds", churn.toMillis() / 1000.0);
        m.put("swapSeconds", swap.toMillis() / 1000.0);
        m.put("maxMessageBytes", maxMessageBytes);
        m.put("splitThreshold", splitThreshold);
        m.put("chunkBytes", chunkBytes);
        m.put("opTimeoutSeconds", opTimeout.toMillis() / 1000.0);
        m.put("zeroLengthSends", zeroLengthSends);
        m.put("invokeOnPoll", invokeOnPoll);
        return m;
    }
}
