package dev.virtuoso.spi.policy;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A congestion-avoidance strategy, published as an OSGi service with
 * {@value LoadBalancerPolicy#NAME_PROPERTY} set to its name (e.g. {@code cc-chunkprobe}).
 * Thread-safe factory of per-connection sessions.
 */
@ConsumerType
public interface CongestionAvoidancePolicy {

    /** @return the policy's name */
    String name();

    /**
     * Creates the state this policy keeps for one connection.
     *
     * @param context the connection and its configuration
     * @param paths the connection's live path state
     * @return a new session, owned and eventually closed by the core
     */
    CongestionAvoidanceSession newSession(PolicyContext context, PathStateView paths);
}
