package dev.virtuoso.policy.binding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.spi.policy.ChunkOutcome;
import dev.virtuoso.spi.policy.ChunkPlacement;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.DefaultPolicyRank;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

class DefaultPoliciesTest {

    /** A load balancer whose sessions say which policy made them. */
    record NamedSession(String policy) implements LoadBalancerSession {
        @Override
        public boolean place(long messageId, long remainingBytes, ChunkPlacement out) {
            return false;
        }

        @Override
        public void onChunkComplete(int path, long bytes, long latencyNanos, ChunkOutcome outcome) {
        }

        @Override
        public void onPathsChanged() {
        }

        @Override
        public void onMessageStart(long messageId, long totalBytes) {
        }

        @Override
        public void close() {
        }
    }

    static LoadBalancerPolicy lb(String name) {
        return new LoadBalancerPolicy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
                return new NamedSession(name);
            }
        };
    }

    static CongestionAvoidancePolicy cc(String name) {
        return new CongestionAvoidancePolicy() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public CongestionAvoidanceSession newSession(PolicyContext context, PathStateView paths) {
                return null;
            }
        };
    }

    static Map<String, Object> props(String name, Object rank) {
        Map<String, Object> m = new HashMap<>();
        m.put(LoadBalancerPolicy.NAME_PROPERTY, name);
        if (rank != null) {
            m.put(DefaultPolicyRank.PROPERTY, rank);
        }
        return m;
    }

    /** The services published, in order; withdrawn ones are removed. */
    static final class Published implements DefaultPolicies.Publisher {
        final List<Object> live = new ArrayList<>();
        final List<Dictionary<String, Object>> liveProps = new ArrayList<>();
        final List<String> log = new ArrayList<>();

        @Override
        public Runnable publish(Class<?> type, Object service, Dictionary<String, Object> properties) {
            live.add(service);
            liveProps.add(properties);
            log.add("+" + type.getSimpleName() + ":" + properties.get(DefaultPolicies.STANDS_FOR));
            return () -> {
                int i = live.indexOf(service);
                live.remove(i);
                liveProps.remove(i);
                log.add("-" + type.getSimpleName() + ":" + properties.get(DefaultPolicies.STANDS_FOR));
            };
        }

        LoadBalancerPolicy loadBalancer() {
            for (Object o : live) {
                if (o instanceof LoadBalancerPolicy p) {
                    return p;
                }
            }
            return null;
        }
    }

    @Test
    void theHighestRankedCandidateIsPublishedUnderTheDefaultName() {
        DefaultPolicies d = new DefaultPolicies();
        Published pub = new Published();
        LoadBalancerPolicy adaptive = lb("lb-adaptive");
        LoadBalancerPolicy proportional = lb("lb-proportional");
        d.addLoadBalancer(lb("lb-roundrobin"), props("lb-roundrobin", null));
        d.addLoadBalancer(proportional, props("lb-proportional", 100));
        assertTrue(pub.live.isEmpty(), "nothing is published before start");
        d.start(pub);
        assertEquals(List.of("+LoadBalancerPolicy:lb-proportional"), pub.log);
        d.addLoadBalancer(adaptive, props("lb-adaptive", "200"));
        assertEquals(List.of("+LoadBalancerPolicy:lb-proportional", "-LoadBalancerPolicy:lb-proportional",
                "+LoadBalancerPolicy:lb-adaptive"), pub.log, "a better candidate replaces the published default");
        LoadBalancerPolicy def = pub.loadBalancer();
        assertEquals(ConnectOptions.DEFAULT_POLICY, def.name());
        assertEquals(ConnectOptions.DEFAULT_POLICY, pub.liveProps.get(0).get(LoadBalancerPolicy.NAME_PROPERTY));
        assertEquals(new NamedSession("lb-adaptive"), def.newSession(new PolicyContext("c", Map.of()), null),
                "sessions come from the winner");
        assertEquals("lb-adaptive", d.loadBalancer());
        d.removeLoadBalancer(adaptive);
        assertEquals("lb-proportional", d.loadBalancer(), "the winner's bundle stopped: the next best");
        assertEquals(new NamedSession("lb-proportional"), pub.loadBalancer().newSession(null, null));
        d.removeLoadBalancer(proportional);
        assertNull(d.loadBalancer());
        assertTrue(pub.live.isEmpty(), "no candidate: the default is withdrawn (connections use their fallback)");
    }

    @Test
    void ownServiceNonCandidatesAndMalformedRanksAreIgnored() {
        DefaultPolicies d = new DefaultPolicies();
        Published pub = new Published();
        d.start(pub);
        d.addLoadBalancer(lb("lb-single"), props("lb-single", null));
        d.addLoadBalancer(lb("lb-x"), props("lb-x", "high"));
        Map<String, Object> own = props(ConnectOptions.DEFAULT_POLICY, 1000);
        own.put(DefaultPolicies.STANDS_FOR, "lb-single");
        d.addLoadBalancer(lb(ConnectOptions.DEFAULT_POLICY), own);
        assertTrue(pub.live.isEmpty(), pub.log.toString());
        assertEquals("load balancers none; congestion avoidance none", d.candidates());
    }

    @Test
    void equalRanksChooseByNameNotByArrival() {
        for (boolean bFirst : new boolean[] {true, false}) {
            DefaultPolicies d = new DefaultPolicies();
            d.start(new Published());
            LoadBalancerPolicy a = lb("lb-a");
            LoadBalancerPolicy b = lb("lb-b");
            if (bFirst) {
                d.addLoadBalancer(b, props("lb-b", 5));
                d.addLoadBalancer(a, props("lb-a", 5));
            } else {
                d.addLoadBalancer(a, props("lb-a", 5));
                d.addLoadBalancer(b, props("lb-b", 5));
            }
            assertEquals("lb-a", d.loadBalancer());
        }
    }

    @Test
    void congestionAvoidanceHasItsOwnDefaultAndStopWithdrawsBoth() {
        DefaultPolicies d = new DefaultPolicies();
        Published pub = new Published();
        CongestionAvoidancePolicy fixed = cc("cc-fixed");
        d.addCongestionAvoidance(fixed, props("cc-fixed", 100));
        d.addCongestionAvoidance(cc("cc-chunkprobe"), props("cc-chunkprobe", null));
        d.addLoadBalancer(lb("lb-adaptive"), props("lb-adaptive", 200));
        d.start(pub);
        assertEquals("cc-fixed", d.congestionAvoidance());
        assertEquals(2, pub.live.size());
        CongestionAvoidancePolicy def = (CongestionAvoidancePolicy) pub.live.stream()
                .filter(o -> o instanceof CongestionAvoidancePolicy).findFirst().orElseThrow();
        assertEquals(ConnectOptions.DEFAULT_POLICY, def.name());
        assertSame(fixed, ((DefaultPolicies.DefaultCongestionAvoidance) def).target());
        assertEquals("load balancers lb-adaptive (rank 200); congestion avoidance cc-fixed (rank 100)",
                d.candidates());
        d.stop();
        assertTrue(pub.live.isEmpty());
        assertNull(d.congestionAvoidance());
    }

    @Test
    void bindingsListTheDefault() {
        DefaultPolicies d = new DefaultPolicies();
        PolicyBindings b = new PolicyBindings(d);
        d.start(new Published());
        b.addLoadBalancer(lb("lb-adaptive"), props("lb-adaptive", 200));
        assertTrue(b.policiesText().contains("default: lb=lb-adaptive cc=none registered (candidates by "
                + DefaultPolicyRank.PROPERTY + ": load balancers lb-adaptive (rank 200); congestion avoidance none)"),
                b.policiesText());
    }
}
