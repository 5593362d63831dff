package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.policy.PathStateView;
import dev.virtuoso.spi.policy.PolicyContext;

/**
 * Chooses and swaps one connection's policy sessions: the chosen policy (at connect, or by the last
 * {@code set...} call) if bound, else the fallback, else the core's built-in one. A connection on
 * the fallback returns to its chosen policy when that registers again (bundle updated or restarted).
 * Swaps run on the engine thread between two chunk placements; a replaced session is closed by the
 * decomposition and never called again.
 */
final class PolicyBinder {
    private static final System.Logger LOG = System.getLogger(PolicyBinder.class.getName());
    private final PolicyRegistry registry;
    private final ConnectOptions options;
    private final PolicyContext context;
    private final Decomposition decomposition;
    private PathStateView view;
    private LoadBalancerPolicy lbPolicy;
    private CongestionAvoidancePolicy ccPolicy;
    private volatile String lbName;
    private volatile String ccName;
    /** The names chosen (connect options or the last set call): what a fallback returns to. */
    private String lbChosen;
    private String ccChosen;

    PolicyBinder(PolicyRegistry registry, ConnectOptions options, String connectionId, Decomposition decomposition,
            PathStateView view) {
        this.registry = registry;
        this.options = options;
        this.context = new PolicyContext(connectionId, options.policyProperties());
        this.decomposition = decomposition;
        this.view = view;
    }

    /** @throws VirtuosoException UNKNOWN_POLICY if neither the chosen nor the fallback policy is available */
    static void check(PolicyRegistry registry, ConnectOptions o) throws VirtuosoException {
        if (!lbAvailable(registry, o.loadBalancer()) && !lbAvailable(registry, o.fallbackLoadBalancer())) {
            throw new VirtuosoException(Reason.UNKNOWN_POLICY, "no load balancer named " + o.loadBalancer()
                    + " or " + o.fallbackLoadBalancer() + " is registered");
        }
        if (!ccAvailable(registry, o.congestionAvoidance()) && !ccAvailable(registry, o.fallbackCongestionAvoidance())) {
            throw new VirtuosoException(Reason.UNKNOWN_POLICY, "no congestion avoidance named "
                    + o.congestionAvoidance() + " or " + o.fallbackCongestionAvoidance() + " is registered");
        }
    }

    static boolean lbAvailable(PolicyRegistry r, String name) {
        return ConnectOptions.BUILTIN_ROUND_ROBIN.equals(name) || r.loadBalancer(name) != null;
    }

    static boolean ccAvailable(PolicyRegistry r, String name) {
        return ConnectOptions.BUILTIN_FIXED_CHUNK.equals(name) || r.congestionAvoidance(name) != null;
    }

    /** Engine thread: installs the sessions chosen by the options. */
    void start() {
        useLoadBalancer(options.loadBalancer());
        useCongestionAvoidance(options.congestionAvoidance());
    }

    String loadBalancer() {
        return lbName;
    }

    String congestionAvoidance() {
        return ccName;
    }

    /** Any thread: records the name about to be used (the engine installs it soon after). */
    void announceLoadBalancer(String name) {
        lbName = name;
    }

    void announceCongestionAvoidance(String name) {
        ccName = name;
    }

    /** Engine thread: installs {@code name}, or the fallback, or the built-in round robin. */
    void useLoadBalancer(String name) {
        lbChosen = name;
        if (!installLb(name) && !installLb(options.fallbackLoadBalancer())) {
            installLb(ConnectOptions.BUILTIN_ROUND_ROBIN);
        }
    }

    /** Engine thread: installs {@code name}, or the fallback, or the built-in fixed chunk size. */
    void useCongestionAvoidance(String name) {
        ccChosen = name;
        if (!installCc(name) && !installCc(options.fallbackCongestionAvoidance())) {
            installCc(ConnectOptions.BUILTIN_FIXED_CHUNK);
        }
    }

    private boolean installLb(String name) {
        if (ConnectOptions.BUILTIN_ROUND_ROBIN.equals(name)) {
            decomposition.loadBalancer(null);
            lbPolicy = null;
            lbName = name;
            return true;
        }
        LoadBalancerPolicy p = registry.loadBalancer(name);
        if (p == null) {
            return false;
        }
        try {
            decomposition.loadBalancer(p.newSession(context, view));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "connection " + context.connectionId() + ": load balancer " + name
                    + " failed to create a session", e);
            return false;
        }
        lbPolicy = p;
        lbName = name;
        return true;
    }

    private boolean installCc(String name) {
        if (ConnectOptions.BUILTIN_FIXED_CHUNK.equals(name)) {
            decomposition.congestionAvoidance(null);
            ccPolicy = null;
            ccName = name;
            return true;
        }
        CongestionAvoidancePolicy p = registry.congestionAvoidance(name);
        if (p == null) {
            return false;
        }
        try {
            decomposition.congestionAvoidance(p.newSession(context, view));
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "connection " + context.connectionId() + ": congestion avoidance "
                    + name + " failed to create a session", e);
            return false;
        }
        ccPolicy = p;
        ccName = name;
        return true;
    }

    /**
     * Engine thread: a policy service went away; sessions made by it move to the fallback (else the
     * built-in policy). The chosen name is kept, so {@link #policyAdded} can return to it.
     */
    void policyGone(Object policy) {
        if (policy != null && policy == lbPolicy) {
            lbPolicy = null;
            if (!installLb(options.fallbackLoadBalancer())) {
                installLb(ConnectOptions.BUILTIN_ROUND_ROBIN);
            }
        }
        if (policy != null && policy == ccPolicy) {
            ccPolicy = null;
            if (!installCc(options.fallbackCongestionAvoidance())) {
                installCc(ConnectOptions.BUILTIN_FIXED_CHUNK);
            }
        }
    }

    /** Engine thread: a policy registered; a connection not on its chosen policy of that name returns to it. */
    void policyAdded(String name) {
        if (name.equals(lbChosen) && !name.equals(lbName)) {
            installLb(name);
        }
        if (name.equals(ccChosen) && !name.equals(ccName)) {
            installCc(name);
        }
    }

    /**
     * Engine thread, at a chunk boundary: the view changed (the path monitor went away). Placement is
     * gated by the new view at once and both sessions are re-created over it, as in a hot swap; the
     * old sessions are closed and never called again.
     */
    void switchView(PathStateView v) {
        view = v;
        decomposition.policyView(v);
        useLoadBalancer(lbChosen);
        useCongestionAvoidance(ccChosen);
    }
}
