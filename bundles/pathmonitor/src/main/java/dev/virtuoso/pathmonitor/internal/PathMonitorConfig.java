package dev.virtuoso.pathmonitor.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Defaults of every connection's path monitor (ConfigAdmin PID {@value PathMonitorService#PID}).
 * A connection overrides any of them with the policy property {@code pathmonitor.<name>}.
 */
@ObjectClassDefinition(name = "Virtuoso path monitor",
        description = "Capacity probing, passive rate estimation and path health per connection.")
public @interface PathMonitorConfig {

    @AttributeDefinition(description = "Bytes of one probe flow per path (the paper: at least 512 KiB); after a failed flow the"
            + " path's next one is halved (down to 4 KiB), after a successful one doubled back.",
            min = "524288")
    long probeFlowBytes() default 524288;

    @AttributeDefinition(description = "Largest probe WRITE; a flow is split into WRITEs of this size"
            + " (also capped by the peer's scratch region).", min = "4096")
    long probeWriteBytes() default 131072;

    @AttributeDefinition(description = "Re-probe paths that carry no data this often; 0 = only when a path"
            + " is added, recovers or a probe is requested.", min = "0")
    long probeIntervalMillis() default 0;

    @AttributeDefinition(description = "Probe flows running at once per connection; 0 = all paths at once.",
            min = "0")
    int probeParallelPaths() default 0;

    @AttributeDefinition(description = "Most flows of a path's first probing, back to back while each"
            + " measures over 10% more than the best before it (the first runs on a cold data path);"
            + " its capacity is the largest rate measured.", min = "1")
    int initialProbeFlows() default 4;

    @AttributeDefinition(description = "Time constant of the passive rate moving average.", min = "1")
    long rateTimeConstantMillis() default 200;

    @AttributeDefinition(description = "Completions are aggregated into one rate sample until they span"
            + " at least this long (smooths batched completion polling).", min = "1")
    long minSampleMicros() default 1000;

    @AttributeDefinition(description = "A path with chunks in flight and no completion for this long (or"
            + " 4x its expected drain time, if longer) is STALLED and leaves the placement.", min = "1")
    long stallTimeoutMillis() default 1000;

    @AttributeDefinition(description = "Consecutive chunk errors after which a path is paused.", min = "1")
    int errorThreshold() default 3;

    @AttributeDefinition(description = "First pause after errorThreshold errors; doubles on each new pause.",
            min = "1")
    long errorCooldownMillis() default 100;

    @AttributeDefinition(description = "Longest pause after errors.", min = "1")
    long maxErrorCooldownMillis() default 30000;

    @AttributeDefinition(description = "A new path whose path pair (device, local and remote vNIC, MTU) another"
            + " connection of the connector probed at most this long ago starts with that capacity and skips its"
            + " connect-time probe flows; older or no measurement: probed as usual. 0 = never shared.", min = "0")
    long sharedCapacityMaxAgeMillis() default 30000;
}
