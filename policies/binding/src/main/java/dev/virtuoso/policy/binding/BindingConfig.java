package dev.virtuoso.policy.binding;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * One factory configuration of PID {@value PolicyBindings#FACTORY_PID}: which policies a connection
 * (or every connection) uses. A configuration naming a connection exactly beats a {@code *} one.
 */
@ObjectClassDefinition(factoryPid = PolicyBindings.FACTORY_PID, name = "Virtuoso policy binding",
        description = "Chooses the load-balancing and congestion-avoidance policies of live connections.")
public @interface BindingConfig {

    @AttributeDefinition(description = "Connection identifier, or * for every connection without a binding"
            + " of its own.")
    String connection() default "*";

    @AttributeDefinition(description = "Load-balancing policy name (e.g. lb-adaptive); empty leaves it as is.")
    String loadBalancer() default "";

    @AttributeDefinition(description = "Congestion-avoidance policy name (e.g. cc-chunkprobe); empty leaves it"
            + " as is.")
    String congestionAvoidance() default "";
}
