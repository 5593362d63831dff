package dev.virtuoso.policy.cc.fixed;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.DefaultPolicyRank;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/**
 * {@value #NAME}: no adaptation, a fixed chunk size and a fixed number of chunks outstanding per
 * path. Configuration changes apply to sessions created afterwards; the service stays registered.
 */
@Component(service = CongestionAvoidancePolicy.class, configurationPid = FixedChunkPolicy.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL,
        property = {LoadBalancerPolicy.NAME_PROPERTY + "=" + FixedChunkPolicy.NAME,
            DefaultPolicyRank.PROPERTY + ":Integer=" + FixedChunkPolicy.DEFAULT_RANK})
@Designate(ocd = FixedChunkConfig.class)
public final class FixedChunkPolicy implements CongestionAvoidancePolicy {
    /**
     * Rank as the default policy ({@link DefaultPolicyRank}); ConfigAdmin may override it with the
     * property of that name. See docs/policies.md for the measurements behind it.
     */
    public static final String DEFAULT_RANK = "100";
    /** The policy's name. */
    public static final String NAME = "cc-fixed";
    /** ConfigAdmin PID of the defaults. */
    public static final String PID = "dev.virtuoso.policy.cc.fixed";

    private volatile long defaultChunkBytes = 1024 * 1024;
    private volatile int defaultWindow = 4;
    private volatile long defaultPacing;

    /** @param config configured defaults */
    @Activate
    @Modified
    void configure(FixedChunkConfig config) {
        defaultChunkBytes = positive("chunkBytes", config.chunkBytes());
        defaultWindow = (int) positive("window", config.window());
        defaultPacing = notNegative("pacingBitsPerSecond", config.pacingBitsPerSecond());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public CongestionAvoidanceSession newSession(PolicyContext context, PathStateView paths) {
        long chunk = positive("chunkBytes", context.longProperty(NAME + ".chunkBytes", defaultChunkBytes));
        long window = positive("window", context.longProperty(NAME + ".window", defaultWindow));
        if (window > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(NAME + ".window too large: " + window);
        }
        long pacing = notNegative("pacingBitsPerSecond",
                context.longProperty(NAME + ".pacingBitsPerSecond", defaultPacing));
        return new FixedChunkSession(chunk, (int) window, pacing);
    }

    private static long notNegative(String name, long v) {
        if (v < 0) {
            throw new IllegalArgumentException(NAME + "." + name + " must be >= 0: " + v);
        }
        return v;
    }

    private static long positive(String name, long v) {
        if (v < 1) {
            throw new IllegalArgumentException(NAME + "." + name + " must be >= 1: " + v);
        }
        return v;
    }
}
