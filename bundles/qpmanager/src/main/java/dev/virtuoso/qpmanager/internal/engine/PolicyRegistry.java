package dev.virtuoso.qpmanager.internal.engine;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArraySet;

import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;

/**
 * The policy services currently bound, by name. Connections listen for removals, to move their
 * sessions to the fallback, and for additions, to return to the policy they chose when it registers
 * again (a policy bundle updated or restarted). Thread-safe.
 */
public final class PolicyRegistry {
    /** Told when a policy service goes away. */
    interface Listener {
        void policyGone(Object policy);

        /** A policy registered under {@code name} (load balancer or congestion avoidance). */
        void policyAdded(String name);
    }

    private final Map<String, LoadBalancerPolicy> loadBalancers = new ConcurrentHashMap<>();
    private final Map<String, CongestionAvoidancePolicy> congestionAvoidances = new ConcurrentHashMap<>();
    private final Set<Listener> listeners = new CopyOnWriteArraySet<>();

    public void add(String name, LoadBalancerPolicy p) {
        loadBalancers.put(name, p);
        notifyAdded(name);
    }

    public void remove(String name, LoadBalancerPolicy p) {
        if (loadBalancers.remove(name, p)) {
            notifyGone(p);
        }
    }

    public void add(String name, CongestionAvoidancePolicy p) {
        congestionAvoidances.put(name, p);
        notifyAdded(name);
    }

    public void remove(String name, CongestionAvoidancePolicy p) {
        if (congestionAvoidances.remove(name, p)) {
            notifyGone(p);
        }
    }

    /** @return the bound load balancer of that name, or {@code null} */
    public LoadBalancerPolicy loadBalancer(String name) {
        return name == null ? null : loadBalancers.get(name);
    }

    /** @return the bound congestion avoidance of that name, or {@code null} */
    public CongestionAvoidancePolicy congestionAvoidance(String name) {
        return name == null ? null : congestionAvoidances.get(name);
    }

    /** @return names of the bound load balancers */
    public Set<String> loadBalancerNames() {
        return Set.copyOf(loadBalancers.keySet());
    }

    /** @return names of the bound congestion avoidances */
    public Set<String> congestionAvoidanceNames() {
        return Set.copyOf(congestionAvoidances.keySet());
    }

    void listen(Listener l) {
        listeners.add(l);
    }

    void unlisten(Listener l) {
        listeners.remove(l);
    }

    private void notifyAdded(String name) {
        for (Listener l : listeners) {
            l.policyAdded(name);
        }
    }

    private void notifyGone(Object p) {
        for (Listener l : listeners) {
            l.policyGone(p);
        }
    }
}
