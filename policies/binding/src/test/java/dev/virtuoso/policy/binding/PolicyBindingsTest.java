package dev.virtuoso.policy.binding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.osgi.service.cm.ConfigurationException;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;

class PolicyBindingsTest {

    /** A connection that knows a set of policy names, as the core does from the registered services. */
    static final class Conn {
        final String id;
        final Set<String> known;
        String lb = "builtin-roundrobin";
        String cc = "builtin-fixed";
        final List<String> calls = new ArrayList<>();
        final MultipathConnection proxy;

        Conn(String id, Set<String> known) {
            this.id = id;
            this.known = known;
            this.proxy = (MultipathConnection) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {MultipathConnection.class}, (p, m, args) -> switch (m.getName()) {
                        case "id" -> id;
                        case "loadBalancer" -> lb;
                        case "congestionAvoidance" -> cc;
                        case "setLoadBalancer" -> {
                            calls.add("lb=" + args[0]);
                            check((String) args[0]);
                            lb = (String) args[0];
                            yield null;
                        }
                        case "setCongestionAvoidance" -> {
                            calls.add("cc=" + args[0]);
                            check((String) args[0]);
                            cc = (String) args[0];
                            yield null;
                        }
                        default -> throw new UnsupportedOperationException(m.getName());
                    });
        }

        private void check(String name) throws VirtuosoException {
            if (!known.contains(name)) {
                throw new VirtuosoException(VirtuosoException.Reason.UNKNOWN_POLICY, "no policy " + name);
            }
        }
    }

    private static Hashtable<String, Object> config(String connection, String lb, String cc) {
        Hashtable<String, Object> d = new Hashtable<>();
        d.put("connection", connection);
        d.put("loadBalancer", lb);
        d.put("congestionAvoidance", cc);
        return d;
    }

    private static Map<String, Object> policy(String name) {
        return Map.of(LoadBalancerPolicy.NAME_PROPERTY, name);
    }

    @Test
    void exactBindingBeatsWildcardAndAppliesToNewConnections() throws Exception {
        PolicyBindings b = new PolicyBindings();
        Set<String> known = new java.util.HashSet<>(Set.of("lb-adaptive", "lb-single", "cc-chunkprobe", "cc-fixed"));
        Conn c1 = new Conn("c1", known);
        Conn c2 = new Conn("c2", known);
        b.addConnection(c1.proxy);
        b.updated("pid.b", config("*", "lb-adaptive", "cc-fixed"));
        assertEquals("lb-adaptive", c1.lb);
        assertEquals("cc-fixed", c1.cc);
        b.updated("pid.a", config("c2", "lb-single", ""));
        b.addConnection(c2.proxy);
        assertEquals("lb-single", c2.lb, "its own binding");
        assertEquals("builtin-fixed", c2.cc, "empty = leave as is");
        b.updated("pid.b", config("*", "lb-adaptive", "cc-chunkprobe"));
        assertEquals("cc-chunkprobe", c1.cc, "updates reach live connections");
        assertEquals("builtin-fixed", c2.cc);
        int calls = c1.calls.size();
        b.updated("pid.b", config("*", "lb-adaptive", "cc-chunkprobe"));
        assertEquals(calls, c1.calls.size(), "nothing to do: no swap");
        b.deleted("pid.a");
        b.updated("pid.b", config("*", "lb-adaptive", "cc-chunkprobe"));
        assertEquals("lb-adaptive", c2.lb, "the wildcard now covers c2");
    }

    @Test
    void unknownPolicyIsRetriedWhenItsServiceAppears() throws Exception {
        PolicyBindings b = new PolicyBindings();
        Set<String> known = new java.util.HashSet<>(Set.of("cc-fixed"));
        Conn c = new Conn("c", known);
        b.addConnection(c.proxy);
        b.updated("pid", config("c", "lb-proportional", ""));
        assertEquals("builtin-roundrobin", c.lb);
        assertTrue(b.problems().get("c").contains("lb-proportional"));
        assertTrue(b.policiesText().contains("NOT APPLIED"));
        known.add("lb-proportional");
        b.addLoadBalancer(DefaultPoliciesTest.lb("lb-proportional"), policy("lb-proportional"));
        assertEquals("lb-proportional", c.lb, "applied when the policy registers");
        assertFalse(b.problems().containsKey("c"));
        assertTrue(b.policiesText().startsWith("load balancers: builtin-roundrobin, lb-proportional"),
                b.policiesText());
        b.removeLoadBalancer(DefaultPoliciesTest.lb("lb-proportional"), policy("lb-proportional"));
        assertFalse(b.policiesText().contains("lb-proportional,"));
        // the core moved the connection to its fallback; the binding still names lb-proportional
        known.remove("lb-proportional");
        c.lb = "builtin-roundrobin";
        assertTrue(b.policiesText().contains("connection c: lb=builtin-roundrobin cc=builtin-fixed (on the fallback"),
                b.policiesText());
        known.add("lb-proportional");
        b.addLoadBalancer(DefaultPoliciesTest.lb("lb-proportional"), policy("lb-proportional"));
        assertEquals("lb-proportional", c.lb, "back on the bound policy when it registers again");
        assertFalse(b.policiesText().contains("on the fallback"), b.policiesText());
    }

    @Test
    void gogoCommands() {
        PolicyBindings b = new PolicyBindings();
        Conn c = new Conn("c9", Set.of("lb-adaptive"));
        b.addConnection(c.proxy);
        assertEquals("connection c9 load balancer builtin-roundrobin", b.choose("loadbalancer", "load balancer", "c9"));
        assertEquals("connection c9 load balancer -> lb-adaptive",
                b.choose("loadbalancer", "load balancer", "c9", "lb-adaptive"));
        assertEquals("lb-adaptive", c.lb);
        assertTrue(b.choose("congestionavoidance", "congestion avoidance", "c9", "cc-nope").contains("no policy cc-nope"));
        assertEquals("connection c9 congestion avoidance builtin-fixed",
                b.choose("congestionavoidance", "congestion avoidance", "c9"));
        assertEquals("no connection zz", b.choose("loadbalancer", "load balancer", "zz", "lb-adaptive"));
        assertTrue(b.choose("loadbalancer", "load balancer").startsWith("usage: loadbalancer CONNECTION [NAME]"),
                "no argument: usage, not an exception");
        assertTrue(b.choose("loadbalancer", "load balancer", "--help").startsWith("usage:"));
        b.removeConnection(c.proxy);
        assertEquals("no connection c9", b.choose("congestionavoidance", "congestion avoidance", "c9"));
    }

    @Test
    void commandsPrintToTheSessionOutput() {
        PolicyBindings b = new PolicyBindings();
        java.io.PrintStream old = System.out;
        java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(buf, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            b.loadbalancer();
            b.policies();
        } finally {
            System.setOut(old);
        }
        String printed = buf.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(printed.startsWith("usage: loadbalancer"), printed);
        assertTrue(printed.contains("load balancers: builtin-roundrobin"), printed);
    }

    @Test
    void malformedConfigurationIsRejected() {
        PolicyBindings b = new PolicyBindings();
        Hashtable<String, Object> d = config("c", "lb-adaptive", "");
        d.put("connection", new String[] {"a", "b"});
        assertThrows(ConfigurationException.class, () -> b.updated("pid", d));
    }
}
