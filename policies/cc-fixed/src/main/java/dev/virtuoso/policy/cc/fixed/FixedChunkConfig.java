package dev.virtuoso.policy.cc.fixed;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Defaults of {@value FixedChunkPolicy#NAME} (ConfigAdmin PID {@value FixedChunkPolicy#PID}); a
 * connection overrides them with the policy properties {@code cc-fixed.<name>}.
 */
@ObjectClassDefinition(name = "Virtuoso cc-fixed policy", description = "A fixed chunk size and a fixed window per path.")
public @interface FixedChunkConfig {

    @AttributeDefinition(description = "Bytes per chunk (one verbs WR).", min = "1")
    long chunkBytes() default 1024 * 1024;

    @AttributeDefinition(description = "Chunks outstanding per path.", min = "1")
    int window() default 4;
}
