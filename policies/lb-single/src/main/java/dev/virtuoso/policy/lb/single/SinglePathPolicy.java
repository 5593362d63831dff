package dev.virtuoso.policy.lb.single;

import org.osgi.service.component.annotations.Component;

import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/**
 * {@value #NAME}: every chunk on one path, the lowest-numbered usable one. The single-path
 * baseline of the benchmarks; it still moves to the next path when that one fails.
 */
@Component(service = LoadBalancerPolicy.class, property = LoadBalancerPolicy.NAME_PROPERTY + "=" + SinglePathPolicy.NAME)
public final class SinglePathPolicy implements LoadBalancerPolicy {
    /** The policy's name. */
    public static final String NAME = "lb-single";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
        return new SinglePathSession(paths);
    }
}
