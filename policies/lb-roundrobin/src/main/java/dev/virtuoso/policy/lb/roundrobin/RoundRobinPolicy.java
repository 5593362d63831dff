package dev.virtuoso.policy.lb.roundrobin;

import org.osgi.service.component.annotations.Component;

import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/**
 * {@value #NAME}: equal split. Each message is cut into one equal share per usable path and chunks
 * go to the usable paths in turn, so every path carries the same number of bytes whatever its
 * capacity (what NCCL's split-data-on-QPs and libfabric mrail do).
 */
@Component(service = LoadBalancerPolicy.class, property = LoadBalancerPolicy.NAME_PROPERTY + "=" + RoundRobinPolicy.NAME)
public final class RoundRobinPolicy implements LoadBalancerPolicy {
    /** The policy's name. */
    public static final String NAME = "lb-roundrobin";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
        return new RoundRobinSession(paths);
    }
}
