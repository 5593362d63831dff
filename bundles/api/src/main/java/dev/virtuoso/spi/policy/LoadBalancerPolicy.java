package dev.virtuoso.spi.policy;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A load-balancing strategy, published as an OSGi service with {@value #NAME_PROPERTY} set to its
 * name (e.g. {@code lb-adaptive}). Thread-safe factory of per-connection sessions.
 */
@ConsumerType
public interface LoadBalancerPolicy {

    /** Service property holding the policy's name, by which connections choose it. */
    String NAME_PROPERTY = "virtuoso.policy.name";

    /** @return the policy's name, equal to its {@value #NAME_PROPERTY} */
    String name();

    /**
     * Creates the state this policy keeps for one connection.
     *
     * @param context the connection and its configuration
     * @param paths the connection's live path state
     * @return a new session, owned and eventually closed by the core
     */
    LoadBalancerSession newSession(PolicyContext context, PathStateView paths);
}
