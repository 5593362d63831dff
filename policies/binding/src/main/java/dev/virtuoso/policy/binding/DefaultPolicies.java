package dev.virtuoso.policy.binding;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BiFunction;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.CongestionAvoidanceSession;
import dev.virtuoso.spi.policy.DefaultPolicyRank;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.LoadBalancerSession;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/**
 * The policies behind {@value ConnectOptions#DEFAULT_POLICY}: of the registered policies that carry
 * {@link DefaultPolicyRank#PROPERTY}, the highest rank wins (equal ranks: the name first in
 * alphabetical order, so the choice does not depend on start order). The winner is published as a
 * policy service named {@value ConnectOptions#DEFAULT_POLICY} that hands out the winner's sessions.
 * When the winner changes (a better one registers, the winner's bundle stops or is updated) the
 * service is withdrawn and published again for the new winner: the core moves connections on the
 * old one to their fallback and, as the name registers again, back to the default, now the new
 * winner, at a chunk boundary. The core thus never names a policy; the policies' own ranks decide.
 *
 * <p>Thread-safe; publishing happens under this object's lock, never under the caller's.
 */
final class DefaultPolicies {
    /** Service property of the published default: the name of the policy it stands for. */
    static final String STANDS_FOR = DefaultPolicyRank.STANDS_FOR_PROPERTY;

    /** Publishes and withdraws a policy service (the framework in OSGi; a list in tests). */
    interface Publisher {
        /** @return a handle whose {@link Runnable#run} withdraws the service */
        Runnable publish(Class<?> type, Object service, Dictionary<String, Object> properties);
    }

    private final Kind<LoadBalancerPolicy> lb = new Kind<>(LoadBalancerPolicy.class, DefaultLoadBalancer::new);
    private final Kind<CongestionAvoidancePolicy> cc = new Kind<>(CongestionAvoidancePolicy.class,
            DefaultCongestionAvoidance::new);
    private Publisher publisher;

    /** @param p where to publish from now on; publishes the current winners */
    synchronized void start(Publisher p) {
        publisher = p;
        lb.update();
        cc.update();
    }

    /** Withdraws both services. */
    synchronized void stop() {
        lb.withdraw();
        cc.withdraw();
        publisher = null;
    }

    synchronized void addLoadBalancer(LoadBalancerPolicy p, Map<String, Object> props) {
        lb.add(p, props);
    }

    synchronized void removeLoadBalancer(LoadBalancerPolicy p) {
        lb.remove(p);
    }

    synchronized void addCongestionAvoidance(CongestionAvoidancePolicy p, Map<String, Object> props) {
        cc.add(p, props);
    }

    synchronized void removeCongestionAvoidance(CongestionAvoidancePolicy p) {
        cc.remove(p);
    }

    /** @return the load balancer behind the default, or {@code null} */
    synchronized String loadBalancer() {
        return lb.published == null ? null : lb.publishedName;
    }

    /** @return the congestion avoidance behind the default, or {@code null} */
    synchronized String congestionAvoidance() {
        return cc.published == null ? null : cc.publishedName;
    }

    /** @return the candidates as "name (rank r)", load balancers then congestion avoidances */
    synchronized String candidates() {
        return "load balancers " + lb.describe() + "; congestion avoidance " + cc.describe();
    }

    /** One kind of policy: its candidates by rank and the published default. */
    private final class Kind<P> {
        private final Class<P> type;
        private final BiFunction<P, String, Object> wrap;
        private final Map<P, Integer> ranks = new LinkedHashMap<>();
        private final Map<P, String> names = new LinkedHashMap<>();
        private P published;
        private String publishedName;
        private Runnable withdraw;

        Kind(Class<P> type, BiFunction<P, String, Object> wrap) {
            this.type = type;
            this.wrap = wrap;
        }

        void add(P p, Map<String, Object> props) {
            if (props.get(STANDS_FOR) != null) {
                return; // our own default service
            }
            Integer rank = DefaultPolicyRank.of(props.get(DefaultPolicyRank.PROPERTY));
            if (rank == null) {
                return;
            }
            ranks.put(p, rank);
            names.put(p, String.valueOf(props.get(LoadBalancerPolicy.NAME_PROPERTY)));
            update();
        }

        void remove(P p) {
            if (ranks.remove(p) != null) {
                names.remove(p);
                update();
            }
        }

        P best() {
            P best = null;
            for (Map.Entry<P, Integer> e : ranks.entrySet()) {
                P p = e.getKey();
                if (best == null || e.getValue() > ranks.get(best)
                        || (e.getValue().equals(ranks.get(best)) && names.get(p).compareTo(names.get(best)) < 0)) {
                    best = p;
                }
            }
            return best;
        }

        void update() {
            P best = best();
            if (best == published && (withdraw != null || publisher == null)) {
                return;
            }
            withdraw();
            if (best == null || publisher == null) {
                return;
            }
            Dictionary<String, Object> props = new Hashtable<>();
            props.put(LoadBalancerPolicy.NAME_PROPERTY, ConnectOptions.DEFAULT_POLICY);
            props.put(STANDS_FOR, names.get(best));
            published = best;
            publishedName = names.get(best);
            withdraw = publisher.publish(type, wrap.apply(best, publishedName), props);
        }

        void withdraw() {
            Runnable w = withdraw;
            withdraw = null;
            published = null;
            publishedName = null;
            if (w != null) {
                w.run();
            }
        }

        String describe() {
            if (ranks.isEmpty()) {
                return "none";
            }
            StringBuilder sb = new StringBuilder();
            for (Map.Entry<P, Integer> e : ranks.entrySet()) {
                sb.append(sb.length() == 0 ? "" : ", ").append(names.get(e.getKey())).append(" (rank ")
                        .append(e.getValue()).append(')');
            }
            return sb.toString();
        }
    }

    /** The default load balancer: the winner's sessions under the name {@value ConnectOptions#DEFAULT_POLICY}. */
    record DefaultLoadBalancer(LoadBalancerPolicy target, String targetName) implements LoadBalancerPolicy {
        @Override
        public String name() {
            return ConnectOptions.DEFAULT_POLICY;
        }

        @Override
        public LoadBalancerSession newSession(PolicyContext context, PathStateView paths) {
            return target.newSession(context, paths);
        }
    }

    /** The default congestion avoidance. */
    record DefaultCongestionAvoidance(CongestionAvoidancePolicy target, String targetName)
            implements CongestionAvoidancePolicy {
        @Override
        public String name() {
            return ConnectOptions.DEFAULT_POLICY;
        }

        @Override
        public CongestionAvoidanceSession newSession(PolicyContext context, PathStateView paths) {
            return target.newSession(context, paths);
        }
    }
}
