package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/** Which policies the registry names, and when connections hear that one is gone. */
class PolicyRegistryTest {

    /** Identity equality, as a policy service has: two instances of one name are different policies. */
    private static final class Lb implements LoadBalancerPolicy {
        private final String name;

        Lb(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
            throw new UnsupportedOperationException("not used here");
        }
    }

    private static final class Ca implements CongestionAvoidancePolicy {
        private final String name;

        Ca(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public CongestionAvoidanceSession newSession(PolicyContext context, PathStateView paths) {
            throw new UnsupportedOperationException("not used here");
        }
    }

    @Test
    void looksUpByNameAndListsNames() {
        PolicyRegistry r = new PolicyRegistry();
        Lb lb = new Lb("rr");
        Ca ca = new Ca("fixed");
        r.add("rr", lb);
        r.add("fixed", ca);
        assertSame(lb, r.loadBalancer("rr"));
        assertSame(ca, r.congestionAvoidance("fixed"));
        assertNull(r.loadBalancer(null));
        assertNull(r.congestionAvoidance(null));
        assertNull(r.loadBalancer("fixed"), "the two kinds have separate names");
        assertEquals(Set.of("rr"), r.loadBalancerNames());
        assertEquals(Set.of("fixed"), r.congestionAvoidanceNames());
    }

    /** Records what a connection would hear. */
    private static final class Heard implements PolicyRegistry.Listener {
        final List<Object> gone = new ArrayList<>();
        final List<String> added = new ArrayList<>();

        @Override
        public void policyGone(Object policy) {
            gone.add(policy);
        }

        @Override
        public void policyAdded(String name) {
            added.add(name);
        }
    }

    @Test
    void listenersHearOnlyOfTheRegisteredInstanceLeaving() {
        PolicyRegistry r = new PolicyRegistry();
        Heard h = new Heard();
        List<Object> gone = h.gone;
        r.listen(h);
        Lb first = new Lb("rr");
        Lb second = new Lb("rr");
        Ca ca = new Ca("fixed");
        r.add("rr", first);
        r.add("rr", second);
        r.add("fixed", ca);
        assertEquals(List.of("rr", "rr", "fixed"), h.added, "every registration is news");
        r.remove("rr", first);
        assertEquals(List.of(), gone, "a replaced instance leaving is not news");
        assertSame(second, r.loadBalancer("rr"));
        r.remove("rr", second);
        r.remove("fixed", new Ca("fixed"));
        assertEquals(List.of(second), gone);
        assertSame(ca, r.congestionAvoidance("fixed"));
        r.remove("fixed", ca);
        assertEquals(List.of(second, ca), gone);
        assertNull(r.loadBalancer("rr"));
        r.unlisten(h);
        r.add("x", new Ca("x"));
        r.remove("x", r.congestionAvoidance("x"));
        assertEquals(2, gone.size(), "no longer listening");
        assertEquals(3, h.added.size(), "no longer listening");
    }
}
