package dev.virtuoso.policy.lb.proportional;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.Designate;

import dev.virtuoso.spi.policy.DefaultPolicyRank;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/**
 * {@value #NAME}: the paper's load balancer. Each message is pre-allocated to the paths in
 * proportion to their probed capacity (equation 1: data_i / cap_i equal for every path, the data_i
 * summing to the message), then chunks are posted round-robin over the paths that still have
 * allocation. A path's capacity is its probed one until it has carried data, then its delivery
 * rate measured from the data's own completions (so a misread probe is corrected and a rate change
 * followed, message by message); paths without a probe use their estimated rate; with neither known
 * anywhere the split is equal.
 */
@Component(service = LoadBalancerPolicy.class, configurationPid = ProportionalPolicy.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL,
        property = {LoadBalancerPolicy.NAME_PROPERTY + "=" + ProportionalPolicy.NAME,
            DefaultPolicyRank.PROPERTY + ":Integer=" + ProportionalPolicy.DEFAULT_RANK})
@Designate(ocd = ProportionalConfig.class)
public final class ProportionalPolicy implements LoadBalancerPolicy {
    /**
     * Rank as the default policy ({@link DefaultPolicyRank}); ConfigAdmin may override it with the
     * property of that name. See docs/policies.md for the measurements behind it.
     */
    public static final String DEFAULT_RANK = "200";
    /** The policy's name. */
    public static final String NAME = "lb-proportional";
    /** ConfigAdmin PID of the defaults. */
    public static final String PID = "dev.virtuoso.policy.lb.proportional";

    /** Default of {@code minShareBytes}: the split threshold's default, ConnectOptions' 64 KiB. */
    public static final long DEFAULT_MIN_SHARE_BYTES = 65536;

    private volatile int defaultMinRelativePercent;
    private volatile long defaultMinShareBytes = DEFAULT_MIN_SHARE_BYTES;

    /** @param config configured defaults */
    @Activate
    @Modified
    void configure(ProportionalConfig config) {
        defaultMinRelativePercent = percent(config.minRelativeCapacityPercent());
        defaultMinShareBytes = minShare(config.minShareBytes());
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
        int minPercent = percent(context.longProperty(NAME + ".minRelativeCapacityPercent", defaultMinRelativePercent));
        long minShare = minShare(context.longProperty(NAME + ".minShareBytes", defaultMinShareBytes));
        return new ProportionalSession(paths, minPercent / 100.0, minShare);
    }

    private static long minShare(long v) {
        if (v < 0) {
            throw new IllegalArgumentException(NAME + ".minShareBytes must be >= 0: " + v);
        }
        return v;
    }

    private static int percent(long v) {
        if (v < 0 || v > 100) {
            throw new IllegalArgumentException(NAME + ".minRelativeCapacityPercent must be 0..100: " + v);
        }
        return (int) v;
    }
}
