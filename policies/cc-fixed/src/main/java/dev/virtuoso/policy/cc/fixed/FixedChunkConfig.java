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

    @AttributeDefinition(description = "Packet pacing of every path, bits per second on the wire, where the device"
            + " can pace (IBV_QP_RATE_LIMIT); 0 = none. A path paced just below its link's rate keeps no standing"
            + " queue, so a random loss costs go-back-N only the packets in flight.", min = "0")
    long pacingBitsPerSecond() default 0;
}
