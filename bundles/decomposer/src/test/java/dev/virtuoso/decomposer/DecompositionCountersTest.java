package dev.virtuoso.decomposer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.junit.jupiter.api.Test;

import dev.virtuoso.decomposer.DecompositionCounters.Counter;

class DecompositionCountersTest {
    private static final Map<Counter, ToLongFunction<DecompositionCounters>> READ = new EnumMap<>(Counter.class);

    static {
        READ.put(Counter.SUBMITTED, DecompositionCounters::messagesSubmitted);
        READ.put(Counter.COMPLETED, DecompositionCounters::messagesCompleted);
        READ.put(Counter.FAILED, DecompositionCounters::messagesFailed);
        READ.put(Counter.POSTED, DecompositionCounters::chunksPosted);
        READ.put(Counter.REPOSTED, DecompositionCounters::chunksReposted);
        READ.put(Counter.CHUNK_FAILED, DecompositionCounters::chunksFailed);
        READ.put(Counter.STALE, DecompositionCounters::staleCompletions);
        READ.put(Counter.DEFERRED, DecompositionCounters::placementsDeferred);
        READ.put(Counter.INVALID_PLACEMENT, DecompositionCounters::invalidPlacements);
        READ.put(Counter.POST_REFUSED, DecompositionCounters::postRefused);
        READ.put(Counter.POLICY_FAULT, DecompositionCounters::policyFaults);
        READ.put(Counter.FAILOVER_TIMEOUT, DecompositionCounters::failoverTimeouts);
        READ.put(Counter.FENCE_WAIT, DecompositionCounters::fenceWaits);
    }

    @Test
    void everyCounterHasAGetter() {
        assertEquals(Counter.values().length, READ.size());
    }

    @Test
    void addRaisesExactlyTheNamedCounterByOne() {
        for (Counter c : Counter.values()) {
            DecompositionCounters counters = new DecompositionCounters();
            counters.add(c);
            counters.add(c);
            for (Counter other : Counter.values()) {
                assertEquals(other == c ? 2 : 0, READ.get(other).applyAsLong(counters), c + " -> " + other);
            }
        }
    }

    @Test
    void toStringNamesEveryValue() {
        DecompositionCounters counters = new DecompositionCounters();
        int n = 1;
        for (Counter c : Counter.values()) {
            for (int i = 0; i < n; i++) {
                counters.add(c);
            }
            n++;
        }
        String s = counters.toString();
        assertEquals("DecompositionCounters[submitted=1, completed=2, failed=3, chunks=4, reposted=5, chunkErrors=6,"
                + " stale=7, deferred=8, invalidPlacements=9, refused=10, policyFaults=11, failoverTimeouts=12,"
                + " fenceWaits=13]", s);
        assertTrue(s.startsWith("DecompositionCounters["));
    }
}
