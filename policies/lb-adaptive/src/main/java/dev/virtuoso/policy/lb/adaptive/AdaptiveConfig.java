package dev.virtuoso.policy.lb.adaptive;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Defaults of {@value AdaptivePolicy#NAME} (ConfigAdmin PID {@value AdaptivePolicy#PID}); a
 * connection overrides them with the policy properties {@code lb-adaptive.<name>}.
 */
@ObjectClassDefinition(name = "Virtuoso lb-adaptive policy",
        description = "Completion-clocked load balancing on measured delivery rates.")
public @interface AdaptiveConfig {

    @AttributeDefinition(description = "A chunk is sized to take about this long on its path"
            + " (bounded below by minChunkBytes and above by congestion avoidance).", min = "1")
    long chunkTimeMillis() default 20;

    @AttributeDefinition(description = "Smallest chunk the policy asks for; also the exploration chunk.", min = "1")
    long minChunkBytes() default 65536;

    @AttributeDefinition(description = "A path is not full while fewer chunks than this are in flight on it.",
            min = "1")
    int minInFlightChunks() default 2;

    @AttributeDefinition(description = "A path is not full while its in-flight bytes drain in less than this.",
            min = "0")
    long queueTargetMillis() default 10;

    @AttributeDefinition(description = "Time constant of the per-path delivery-rate moving average.", min = "1")
    long rateTimeConstantMillis() default 100;

    @AttributeDefinition(description = "Every Nth decision may explore a path that has been idle for"
            + " exploreIdleMillis; 0 disables periodic exploration.", min = "0")
    int exploreEvery() default 64;

    @AttributeDefinition(description = "Idle time after which a path is explored.", min = "1")
    long exploreIdleMillis() default 250;

    @AttributeDefinition(description = "Hold the tail of a message for the paths that finish it first instead"
            + " of giving the last chunks to slow paths.")
    boolean tailAware() default true;
}
