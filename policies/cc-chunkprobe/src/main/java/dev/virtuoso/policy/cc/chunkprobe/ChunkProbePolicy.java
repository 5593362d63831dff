package dev.virtuoso.policy.cc.chunkprobe;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import dev.virtuoso.policy.cc.chunkprobe.api.ChunkProbeStatistics;
import dev.virtuoso.policy.cc.chunkprobe.api.ChunkSizeStats;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/**
 * {@value #NAME}: the paper's congestion avoidance for lossy networks (its section 3.5): per path,
 * the largest chunk that does not end in RETRY_EXC_ERR is found by binary then linear increase. See
 * {@link ChunkProbeSession}. Also the {@link ChunkProbeStatistics} service of its live sessions and
 * the Gogo command {@code virtuoso:chunksizes [connection]} printing them (the paper's Table 2 per
 * connection: the sum of the paths' safe chunk sizes and their mean).
 */
@Component(service = {CongestionAvoidancePolicy.class, ChunkProbeStatistics.class},
        configurationPid = ChunkProbePolicy.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        property = {LoadBalancerPolicy.NAME_PROPERTY + "=" + ChunkProbePolicy.NAME, "osgi.command.scope=virtuoso",
            "osgi.command.function=chunksizes"})
@Designate(ocd = ChunkProbeConfig.class)
public final class ChunkProbePolicy implements CongestionAvoidancePolicy, ChunkProbeStatistics {
    /** The policy's name. */
    public static final String NAME = "cc-chunkprobe";
    /** ConfigAdmin PID of the defaults. */
    public static final String PID = "dev.virtuoso.policy.cc.chunkprobe";

    private final Set<ChunkProbeSession> sessions = ConcurrentHashMap.newKeySet();
    private volatile ChunkProbeSettings defaults = ChunkProbeSettings.DEFAULTS;
    private final LongSupplier clock;

    public ChunkProbePolicy() {
        this(System::nanoTime);
    }

    /** @param clock nanoseconds, the time of a chunk's completion when the session hears of it */
    ChunkProbePolicy(LongSupplier clock) {
        this.clock = clock;
    }

    /** @param config configured defaults */
    @Activate
    @Modified
    void configure(ChunkProbeConfig config) {
        defaults = ChunkProbeSettings.of(config);
    }

    @Deactivate
    void deactivate() {
        sessions.clear();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CongestionAvoidanceSession newSession(PolicyContext context, PathStateView paths) {
        return new ChunkProbeSession(context.connectionId(), paths, defaults.with(context), sessions, clock);
    }

    @Override
    public List<String> connections() {
        List<String> ids = new ArrayList<>();
        for (ChunkProbeSession s : sessions) {
            if (!ids.contains(s.connectionId())) {
                ids.add(s.connectionId());
            }
        }
        return ids;
    }

    @Override
    public List<ChunkSizeStats> statistics(String connectionId) {
        for (ChunkProbeSession s : sessions) {
            if (s.connectionId().equals(connectionId)) {
                return s.statistics();
            }
        }
        return List.of();
    }

    /**
     * Gogo {@code virtuoso:chunksizes [connection]}: prints to the session's output (Karaf's batch
     * client does not print returned values).
     *
     * @param args nothing, or a connection identifier
     */
    public void chunksizes(String... args) {
        if (args.length > 1 || (args.length == 1 && args[0].startsWith("-"))) {
            System.out.println("usage: chunksizes [CONNECTION]: chunk sizes of the connections using " + NAME);
            return;
        }
        System.out.print(args.length == 0 ? chunksizesText() + "\n" : chunksizesText(args[0]));
    }

    /**
     * Chunk sizes of every connection using cc-chunkprobe.
     *
     * @return a table per connection
     */
    String chunksizesText() {
        StringBuilder sb = new StringBuilder();
        for (String id : connections()) {
            sb.append(chunksizesText(id));
        }
        return sb.length() == 0 ? "no connection uses " + NAME : sb.toString();
    }

    /**
     * One connection's chunk sizes.
     *
     * @param connectionId a connection identifier
     * @return the connection's table
     */
    String chunksizesText(String connectionId) {
        List<ChunkSizeStats> stats = statistics(connectionId);
        if (stats.isEmpty()) {
            return "connection " + connectionId + " does not use " + NAME + "\n";
        }
        StringBuilder sb = new StringBuilder("connection " + connectionId + "\n");
        sb.append(String.format(Locale.ROOT, "  %4s %-7s %10s %10s %10s %10s %8s %6s%n", "path", "phase", "current",
                "safe", "max done", "avg done", "chunks", "losses"));
        long sumSafe = 0;
        for (ChunkSizeStats s : stats) {
            sumSafe += s.safeChunkBytes();
            sb.append(String.format(Locale.ROOT, "  %4d %-7s %10d %10d %10d %10d %8d %6d%n", s.path(), s.phase(),
                    s.currentChunkBytes(), s.safeChunkBytes(), s.maxCompletedChunkBytes(),
                    s.averageCompletedChunkBytes(), s.chunksCompleted(), s.losses()));
        }
        sb.append(String.format(Locale.ROOT, "  paths %d: safe sizes sum %d bytes, mean %d bytes per path%n",
                stats.size(), sumSafe, sumSafe / stats.size()));
        return sb.toString();
    }
}
