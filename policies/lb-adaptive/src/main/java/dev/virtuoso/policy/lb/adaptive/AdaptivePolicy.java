package dev.virtuoso.policy.lb.adaptive;

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
 * {@value #NAME}: completion-clocked load balancing. Each path's delivery rate is measured from
 * its completions; the next chunk goes to the path that would finish it first
 * ({@code (inFlight + chunk) / rate}) among those whose in-flight bytes are below their share, so
 * placement follows capacity changes as fast as the rate estimate does (time constant 100 ms by
 * default). See {@link AdaptiveSession} for the rules.
 */
@Component(service = LoadBalancerPolicy.class, configurationPid = AdaptivePolicy.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL,
        property = {LoadBalancerPolicy.NAME_PROPERTY + "=" + AdaptivePolicy.NAME,
            DefaultPolicyRank.PROPERTY + ":Integer=" + AdaptivePolicy.DEFAULT_RANK})
@Designate(ocd = AdaptiveConfig.class)
public final class AdaptivePolicy implements LoadBalancerPolicy {
    /**
     * Rank as the default policy ({@link DefaultPolicyRank}); ConfigAdmin may override it with the
     * property of that name. See docs/policies.md for the measurements behind it.
     */
    public static final String DEFAULT_RANK = "100";
    /** The policy's name. */
    public static final String NAME = "lb-adaptive";
    /** ConfigAdmin PID of the defaults. */
    public static final String PID = "dev.virtuoso.policy.lb.adaptive";

    private volatile AdaptiveSettings defaults = new AdaptiveSettings(20_000_000L, 65536, 2, 10_000_000L,
            100_000_000L, 64, 250_000_000L, true);

    /** @param config configured defaults */
    @Activate
    @Modified
    void configure(AdaptiveConfig config) {
        defaults = AdaptiveSettings.of(config);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
        return new AdaptiveSession(paths, defaults.with(context));
    }
}
