package dev.virtuoso.policy.lb.proportional;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Defaults of {@value ProportionalPolicy#NAME} (ConfigAdmin PID {@value ProportionalPolicy#PID}); a
 * connection overrides them with the policy properties {@code lb-proportional.<name>}.
 */
@ObjectClassDefinition(name = "Virtuoso lb-proportional policy",
        description = "The paper's pre-allocation: bytes per path in proportion to probed capacity (equation 1).")
public @interface ProportionalConfig {

    @AttributeDefinition(description = "Paths whose capacity is below this percentage of the fastest"
            + " path's get no data (UCX drops lanes 4x slower, i.e. 25); 0 keeps every path.", min = "0", max = "100")
    int minRelativeCapacityPercent() default 0;

    @AttributeDefinition(description = "No path gets a share of a message smaller than this (bytes): the"
            + " slowest paths are left out of a message until every share is at least this large, so a"
            + " message just above the split threshold is not cut into chunks smaller than it; 0 splits"
            + " over every path.", min = "0")
    long minShareBytes() default ProportionalPolicy.DEFAULT_MIN_SHARE_BYTES;
}
