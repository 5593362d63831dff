package dev.virtuoso.policy.cc.chunkprobe;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Defaults of {@value ChunkProbePolicy#NAME} (ConfigAdmin PID {@value ChunkProbePolicy#PID}); a
 * connection overrides them with the policy properties {@code cc-chunkprobe.<name>}.
 */
@ObjectClassDefinition(name = "Virtuoso cc-chunkprobe policy",
        description = "The paper's lossy-network chunk probe: binary increase, back on RETRY_EXC_ERR, then linear.")
public @interface ChunkProbeConfig {

    @AttributeDefinition(description = "Chunk size each path starts probing from (small: the probe only grows"
            + " a size until a loss or a slowdown, so it must start below what random loss allows).", min = "1")
    long initialChunkBytes() default 16384;

    @AttributeDefinition(description = "Chunks never get smaller than this.", min = "1")
    long minChunkBytes() default 4096;

    @AttributeDefinition(description = "Chunks never get larger than this.", min = "1")
    long maxChunkBytes() default 64L * 1024 * 1024;

    @AttributeDefinition(description = "Largest step of the linear increase after the first loss (the step is"
            + " a quarter of the proven size, at most this).", min = "1")
    long linearStepBytes() default 65536;

    @AttributeDefinition(description = "Chunks outstanding per path, posted in turns as completions arrive,"
            + " until a chunk of the path ends in RETRY_EXC_ERR (then windowAfterLoss). 2: a lost last packet"
            + " of a chunk is NAKed when the next chunk's first packet arrives instead of waiting out the"
            + " ACK timeout; 1: a path's WRs never overlap (the paper).", min = "1")
    int window() default 2;

    @AttributeDefinition(description = "Chunks outstanding per path once one of its chunks ended in RETRY_EXC_ERR"
            + " (a burst overflowed the path: from then on its bursts stay one chunk when this is 1).", min = "1")
    int windowAfterLoss() default 1;

    @AttributeDefinition(description = "Once the threshold is found, try one linear step up again after this"
            + " many successful chunks at it (doubled after each failed try); 0 = never (the paper).", min = "0")
    long reprobeAfterChunks() default 1024;

    @AttributeDefinition(description = "Each wait before a re-probe (reprobeAfterChunks, and its doublings)"
            + " is lengthened by a random 0..this percent of it, drawn per path: paths that started together"
            + " and run at the same rate would otherwise re-probe, overflow and be repaired all at once.",
            min = "0", max = "100")
    int reprobeJitterPercent() default 50;

    @AttributeDefinition(description = "Full-size chunks a size is measured over before it grows.", min = "1")
    int levelChunks() default 16;

    @AttributeDefinition(description = "Bytes a size is measured over (at least) before it grows.", min = "1")
    long levelBytes() default 1024 * 1024;

    @AttributeDefinition(description = "A size whose chunks complete this many percent slower (bytes per"
            + " second of chunk latency) than the best size so far counts as a loss (go-back-N damage grows"
            + " with the chunk); 100 = off.", min = "0", max = "100")
    int slowdownPercent() default 5;

    @AttributeDefinition(description = "While none of a path's chunks ended in RETRY_EXC_ERR (retries hide its"
            + " losses), a larger size is kept only if its level completes at least this many percent faster than"
            + " the best smaller size (growth must pay: go-back-N resends what is in flight after each loss);"
            + " 0 = off (a size not slower than slowdownPercent is kept).", min = "0")
    int gainPercent() default 5;

    @AttributeDefinition(description = "Two levels in a row at or below the proven size, each this many percent"
            + " slower than the level that proved it, halve the size as a RETRY_EXC_ERR there would (with retries"
            + " a shallow buffer can stay in go-back-N collapse at a size it once took); 100 = off.",
            min = "0", max = "100")
    int collapsePercent() default 25;
}
