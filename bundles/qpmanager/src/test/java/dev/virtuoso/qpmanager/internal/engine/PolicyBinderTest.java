package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/**
 * {@link PolicyBinder} over a recording decomposition: which session is installed when the chosen
 * policy, the fallback or only the built-in one is there, when a policy fails to make a session,
 * goes away and comes back, and when the view changes. Engine-thread code, run on the test thread.
 */
class PolicyBinderTest {
    private final List<String> installed = new ArrayList<>();
    private final List<PolicyContext> contexts = new ArrayList<>();
    private final List<PathStateView> views = new ArrayList<>();
    private final PolicyRegistry registry = new PolicyRegistry();
    private final PathStateView view = proxy(PathStateView.class, "view");

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, String tag) {
        return (T) Proxy.newProxyInstance(PolicyBinderTest.class.getClassLoader(), new Class<?>[] {type},
                (p, m, args) -> switch (m.getName()) {
                    case "toString", "name" -> tag;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private Decomposition decomposition() {
        return (Decomposition) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Decomposition.class},
                (p, m, args) -> {
                    switch (m.getName()) {
                        case "loadBalancer" -> installed.add("lb " + args[0]);
                        case "congestionAvoidance" -> installed.add("cc " + args[0]);
                        case "policyView" -> views.add((PathStateView) args[0]);
                        default -> throw new UnsupportedOperationException(m.getName());
                    }
                    return null;
                });
    }

    private LoadBalancerPolicy lb(String name, boolean fails) {
        return (LoadBalancerPolicy) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {LoadBalancerPolicy.class}, (p, m, args) -> switch (m.getName()) {
                    case "name", "toString" -> name;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    case "newSession" -> {
                        if (fails) {
                            throw new IllegalStateException("no session");
                        }
                        contexts.add((PolicyContext) args[0]);
                        assertSame(views.isEmpty() ? view : views.get(views.size() - 1), args[1]);
                        yield proxy(LoadBalancerSession.class, name);
                    }
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private CongestionAvoidancePolicy cc(String name, boolean fails) {
        return (CongestionAvoidancePolicy) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {CongestionAvoidancePolicy.class}, (p, m, args) -> switch (m.getName()) {
                    case "name", "toString" -> name;
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    case "newSession" -> {
                        if (fails) {
                            throw new IllegalStateException("no session");
                        }
                        contexts.add((PolicyContext) args[0]);
                        yield proxy(CongestionAvoidanceSession.class, name);
                    }
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private static ConnectOptions.Builder options() {
        return ConnectOptions.builder().loadBalancer("lb1").congestionAvoidance("cc1").fallbackLoadBalancer("lb2")
                .fallbackCongestionAvoidance("cc2");
    }

    private PolicyBinder binder(ConnectOptions o) {
        return new PolicyBinder(registry, o, "c7", decomposition(), view);
    }

    @Test
    void checkWantsTheChosenOrTheFallbackPolicyOfEachKind() throws Exception {
        ConnectOptions o = options().build();
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> PolicyBinder.check(registry, o));
        assertEquals(Reason.UNKNOWN_POLICY, e.reason());
        assertEquals("no load balancer named lb1 or lb2 is registered", e.getMessage());
        registry.add("lb2", lb("lb2", false));
        e = assertThrows(VirtuosoException.class, () -> PolicyBinder.check(registry, o));
        assertEquals("no congestion avoidance named cc1 or cc2 is registered", e.getMessage());
        registry.add("cc1", cc("cc1", false));
        assertDoesNotThrow(() -> PolicyBinder.check(registry, o));
        PolicyRegistry none = new PolicyRegistry();
        assertDoesNotThrow(() -> PolicyBinder.check(none, ConnectOptions.builder().loadBalancer("x")
                .congestionAvoidance("y").build()), "the default fallbacks are built in");
        assertThrows(VirtuosoException.class, () -> PolicyBinder.check(none, ConnectOptions.builder()
                .loadBalancer(ConnectOptions.BUILTIN_ROUND_ROBIN).fallbackLoadBalancer("x").congestionAvoidance("y")
                .fallbackCongestionAvoidance("z").build()), "a built-in load balancer but no congestion avoidance");
        assertDoesNotThrow(() -> PolicyBinder.check(none, ConnectOptions.builder().loadBalancer("x")
                .fallbackLoadBalancer(ConnectOptions.BUILTIN_ROUND_ROBIN).congestionAvoidance(
                        ConnectOptions.BUILTIN_FIXED_CHUNK).fallbackCongestionAvoidance("z").build()));
        assertTrue(PolicyBinder.lbAvailable(none, ConnectOptions.BUILTIN_ROUND_ROBIN));
        assertFalse(PolicyBinder.lbAvailable(none, ConnectOptions.BUILTIN_FIXED_CHUNK));
        assertTrue(PolicyBinder.ccAvailable(none, ConnectOptions.BUILTIN_FIXED_CHUNK));
        assertFalse(PolicyBinder.ccAvailable(none, ConnectOptions.BUILTIN_ROUND_ROBIN));
    }

    @Test
    void startInstallsTheChosenPolicies() {
        registry.add("lb1", lb("lb1", false));
        registry.add("cc1", cc("cc1", false));
        PolicyBinder b = binder(options().policyProperty("k", "v").build());
        b.start();
        assertEquals(List.of("lb lb1", "cc cc1"), installed);
        assertEquals("lb1", b.loadBalancer());
        assertEquals("cc1", b.congestionAvoidance());
        assertEquals(2, contexts.size());
        assertEquals("c7", contexts.get(0).connectionId());
        assertEquals(Map.of("k", "v"), contexts.get(0).properties());
    }

    @Test
    void aMissingOrFailingPolicyFallsBackThenToTheBuiltIn() {
        registry.add("lb1", lb("lb1", true));
        registry.add("cc2", cc("cc2", false));
        PolicyBinder b = binder(options().build());
        b.start();
        assertEquals(List.of("lb null", "cc cc2"), installed, "lb1 fails, lb2 missing: built in; cc1 missing: cc2");
        assertEquals(ConnectOptions.BUILTIN_ROUND_ROBIN, b.loadBalancer());
        assertEquals("cc2", b.congestionAvoidance());
        installed.clear();
        registry.add("cc3", cc("cc3", true));
        b.useCongestionAvoidance("cc3");
        assertEquals(List.of("cc cc2"), installed, "cc3 fails: the fallback");
        installed.clear();
        registry.remove("cc2", registry.congestionAvoidance("cc2"));
        b.useCongestionAvoidance("cc3");
        assertEquals(List.of("cc null"), installed);
        assertEquals(ConnectOptions.BUILTIN_FIXED_CHUNK, b.congestionAvoidance());
    }

    @Test
    void aPolicyThatGoesAwayIsReplacedAndComesBackWhenItReturns() {
        LoadBalancerPolicy lb1 = lb("lb1", false);
        CongestionAvoidancePolicy cc1 = cc("cc1", false);
        registry.add("lb1", lb1);
        registry.add("cc1", cc1);
        registry.add("lb2", lb("lb2", false));
        PolicyBinder b = binder(options().build());
        b.start();
        installed.clear();
        b.policyGone(null);
        b.policyGone(lb("other", false));
        assertEquals(List.of(), installed, "not ours");
        registry.remove("lb1", lb1);
        b.policyGone(lb1);
        assertEquals(List.of("lb lb2"), installed, "the fallback");
        assertEquals("lb2", b.loadBalancer());
        registry.remove("cc1", cc1);
        b.policyGone(cc1);
        assertEquals(List.of("lb lb2", "cc null"), installed, "no cc2: the built-in");
        assertEquals(ConnectOptions.BUILTIN_FIXED_CHUNK, b.congestionAvoidance());
        installed.clear();
        b.policyAdded("lb2");
        b.policyAdded("unrelated");
        assertEquals(List.of(), installed, "only the chosen one is taken back");
        registry.add("lb1", lb1);
        b.policyAdded("lb1");
        assertEquals(List.of("lb lb1"), installed);
        assertEquals("lb1", b.loadBalancer());
        b.policyAdded("lb1");
        assertEquals(List.of("lb lb1"), installed, "already on it");
        registry.add("cc1", cc1);
        b.policyAdded("cc1");
        assertEquals(List.of("lb lb1", "cc cc1"), installed);
        assertEquals("cc1", b.congestionAvoidance());
        installed.clear();
        b.policyGone(lb1);
        b.policyGone(lb1);
        assertEquals(List.of("lb lb2"), installed, "gone once: the second call finds another session");
    }

    @Test
    void aBuiltInPolicyNeverGoesAway() {
        PolicyBinder b = binder(ConnectOptions.builder().loadBalancer(ConnectOptions.BUILTIN_ROUND_ROBIN)
                .congestionAvoidance(ConnectOptions.BUILTIN_FIXED_CHUNK).build());
        b.start();
        installed.clear();
        b.policyGone(lb("x", false));
        assertEquals(List.of(), installed);
    }

    @Test
    void announcedNamesShowBeforeTheSwap() {
        registry.add("lb1", lb("lb1", false));
        registry.add("cc1", cc("cc1", false));
        PolicyBinder b = binder(options().build());
        b.start();
        b.announceLoadBalancer("lb9");
        b.announceCongestionAvoidance("cc9");
        assertEquals("lb9", b.loadBalancer());
        assertEquals("cc9", b.congestionAvoidance());
    }

    @Test
    void aNewViewRecreatesBothSessionsOverIt() {
        registry.add("lb1", lb("lb1", false));
        registry.add("cc1", cc("cc1", false));
        PolicyBinder b = binder(options().build());
        b.start();
        installed.clear();
        PathStateView v2 = proxy(PathStateView.class, "v2");
        b.switchView(v2);
        assertEquals(List.of(v2), views);
        assertEquals(List.of("lb lb1", "cc cc1"), installed);
        installed.clear();
        b.useLoadBalancer(ConnectOptions.BUILTIN_ROUND_ROBIN);
        installed.clear();
        b.switchView(view);
        assertEquals(List.of("lb null", "cc cc1"), installed, "the last chosen policies");
    }
}
