package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/** Policy services chosen by name, swapped on a live connection, and replaced when they go away. */
class PolicyTest {

    /** Places every chunk on one path. */
    static final class Pinned implements LoadBalancerPolicy {
        final int path;
        final List<Session> sessions = new CopyOnWriteArrayList<>();

        Pinned(int path) {
            this.path = path;
        }

        @Override
        public String name() {
            return "pin-" + path;
        }

        @Override
        public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
            Session s = new Session();
            sessions.add(s);
            return s;
        }

        final class Session implements LoadBalancerSession {
            final AtomicInteger closes = new AtomicInteger();
            volatile boolean closed;
            final AtomicInteger callsAfterClose = new AtomicInteger();

            @Override
            public void onMessageStart(long messageId, long totalBytes) {
                check();
            }

            @Override
            public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
                check();
                out.set(path, Long.MAX_VALUE);
                return true;
            }

            @Override
            public void onChunkComplete(int p, long bytes, long latencyNanos, ChunkOutcome outcome) {
                check();
            }

            @Override
            public void onPathsChanged() {
                check();
            }

            private void check() {
                if (closed) {
                    callsAfterClose.incrementAndGet();
                }
            }

            @Override
            public void close() {
                closed = true;
                closes.incrementAndGet();
            }
        }
    }

    /** Small chunks, one at a time per path. */
    static final class TinyChunks implements CongestionAvoidancePolicy {
        final AtomicInteger sessions = new AtomicInteger();
        final AtomicInteger closed = new AtomicInteger();

        @Override
        public String name() {
            return "tiny";
        }

        @Override
        public CongestionAvoidanceSession newSession(PolicyContext context, PathStateView paths) {
            assertEquals("value", context.properties().get("tiny.key"));
            sessions.incrementAndGet();
            return new CongestionAvoidanceSession() {
                @Override
                public long maxChunkBytes(int path) {
                    return 64 * 1024;
                }

                @Override
                public int maxOutstandingChunks(int path) {
                    return 1;
                }

                @Override
                public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
                }

                @Override
                public void onPathsChanged() {
                }

                @Override
                public void close() {
                    closed.incrementAndGet();
                }
            };
        }
    }

    private static long chunks(List<PathStats> s, int path) {
        return s.get(path).chunksCompleted();
    }

    @Test
    void policiesByNameSwappedAndFallenBackFrom() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0", "rate=0")) {
            Pinned pin2 = new Pinned(2);
            Pinned pin0 = new Pinned(0);
            TinyChunks tiny = new TinyChunks();
            f.policies.add("pin-2", pin2);
            f.policies.add("pin-0", pin0);
            f.policies.add("tiny", tiny);
            var o = Fabric.options().loadBalancer("pin-2").fallbackLoadBalancer("pin-0").congestionAvoidance("tiny")
                    .policyProperty("tiny.key", "value");
            Pair p = new Pair(f.connect(o, Fabric.options()), 4 << 20);
            assertEquals("pin-2", p.client.loadBalancer());
            assertEquals("tiny", p.client.congestionAvoidance());

            MpCompletion w = p.write(1 << 20);
            assertEquals(1, w.paths());
            assertEquals(16, chunks(p.client.pathStats(), 2), "1 MiB in 64 KiB chunks, all on path 2");

            p.client.setLoadBalancer(ConnectOptions.BUILTIN_ROUND_ROBIN);
            assertEquals(ConnectOptions.BUILTIN_ROUND_ROBIN, p.client.loadBalancer());
            assertEquals(3, p.write(1 << 20).paths());
            assertEquals(1, pin2.sessions.get(0).closes.get(), "the replaced session is closed");

            p.client.setLoadBalancer("pin-2");
            p.write(64 * 1024);
            f.policies.remove("pin-2", pin2);
            long before = chunks(p.client.pathStats(), 0);
            MpCompletion afterRemoval = p.write(1 << 20);
            assertEquals(1, afterRemoval.paths());
            assertEquals(before + 16, chunks(p.client.pathStats(), 0), "moved to the fallback pin-0");
            assertEquals("pin-0", p.client.loadBalancer());
            assertEquals(1, pin2.sessions.get(1).closes.get());
            for (Pinned.Session s : pin2.sessions) {
                assertEquals(0, s.callsAfterClose.get(), "a closed session is never called");
            }

            f.policies.remove("pin-0", pin0);
            assertEquals(3, p.write(3 << 20).paths(), "fallback gone too: built-in round robin");
            assertEquals(ConnectOptions.BUILTIN_ROUND_ROBIN, p.client.loadBalancer());

            VirtuosoException unknown = assertThrows(VirtuosoException.class, () -> p.client.setLoadBalancer("nope"));
            assertEquals(VirtuosoException.Reason.UNKNOWN_POLICY, unknown.reason());
            p.client.setCongestionAvoidance(ConnectOptions.BUILTIN_FIXED_CHUNK);
            p.write(2 << 20);
            assertTrue(tiny.closed.get() >= 1);
        }
    }

    @Test
    void connectionOnTheFallbackReturnsToItsChosenPolicyWhenItRegistersAgain() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0", "rate=0")) {
            Pinned pin2 = new Pinned(2);
            Pinned pin0 = new Pinned(0);
            f.policies.add("pin-2", pin2);
            f.policies.add("pin-0", pin0);
            var o = Fabric.options().loadBalancer("pin-2").fallbackLoadBalancer("pin-0");
            Pair p = new Pair(f.connect(o, Fabric.options()), 4 << 20);
            p.write(64 * 1024);
            f.policies.remove("pin-2", pin2);
            p.write(64 * 1024);
            assertEquals("pin-0", p.client.loadBalancer(), "on the fallback while pin-2 is gone");

            Pinned pin2Again = new Pinned(2);
            f.policies.add("pin-2", pin2Again);
            p.write(64 * 1024);
            assertEquals("pin-2", p.client.loadBalancer(), "back on the chosen policy");
            long before = p.client.pathStats().get(2).bytesCompleted();
            assertEquals(1, p.write(1 << 20).paths());
            assertEquals(before + (1 << 20), p.client.pathStats().get(2).bytesCompleted(), "1 MiB on path 2 again");
            assertEquals(1, pin2Again.sessions.size(), "a session of the returned service");

            // a policy the connection did not choose does not take it over when it registers
            f.policies.remove("pin-0", pin0);
            f.policies.add("pin-0", new Pinned(0));
            p.write(64 * 1024);
            assertEquals("pin-2", p.client.loadBalancer());
        }
    }

    @Test
    void unknownPolicyWithoutFallbackIsRefusedAtConnect() throws Exception {
        try (Fabric f = new Fabric("rate=0")) {
            var o = Fabric.options().loadBalancer("nope").fallbackLoadBalancer("nope-either");
            VirtuosoException e = assertThrows(VirtuosoException.class, () -> f.connect(o, Fabric.options()));
            assertEquals(VirtuosoException.Reason.UNKNOWN_POLICY, e.reason());
        }
    }
}
