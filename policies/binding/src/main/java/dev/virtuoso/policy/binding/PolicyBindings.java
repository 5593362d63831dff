package dev.virtuoso.policy.binding;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Dictionary;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationException;
import org.osgi.service.cm.ManagedServiceFactory;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.DefaultPolicyRank;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;

/**
 * Chooses live connections' policies from ConfigAdmin and from Gogo.
 *
 * <p>ConfigAdmin: factory configurations of PID {@value #FACTORY_PID} ({@link BindingConfig}). The
 * binding of a connection is the configuration naming its identifier, else the {@code *}
 * configuration with the smallest PID. It is applied with
 * {@link MultipathConnection#setLoadBalancer} / {@link MultipathConnection#setCongestionAvoidance}
 * (the core swaps at the next chunk boundary) when a configuration is created or updated, when a
 * connection service appears (also connections created after the configuration), and when a policy
 * service appears. Deleting a configuration leaves the connections' policies as they are.
 *
 * <p>Fallback and return: while a bound policy is not registered (its bundle stopped, or being
 * updated) the connection runs on its fallback policy ({@code ConnectOptions.fallbackLoadBalancer},
 * else the built-in one) and {@code policies} says so; when the policy registers again the connection
 * returns to it at the next chunk boundary. The component is immediate, so this holds with no shell
 * attached.
 *
 * <p>Defaults: a connection that names no policy asks for {@link ConnectOptions#DEFAULT_POLICY}; this
 * component publishes that name for the best-ranked registered policy ({@link DefaultPolicies}).
 *
 * <p>Gogo, scope {@code virtuoso} (names chosen not to clash with the standard shells' commands, e.g.
 * Felix's {@code lb}): {@code loadbalancer <connection> [name]}, {@code congestionavoidance <connection>
 * [name]} show or switch one connection's policy now; {@code policies} lists the registered policies,
 * the bindings and each connection's state. They print to the session's output (Karaf's batch
 * client included).
 */
@Component(service = ManagedServiceFactory.class, immediate = true, property = {
    Constants.SERVICE_PID + "=" + PolicyBindings.FACTORY_PID, "osgi.command.scope=virtuoso",
    "osgi.command.function=loadbalancer", "osgi.command.function=congestionavoidance",
    "osgi.command.function=policies"})
public final class PolicyBindings implements ManagedServiceFactory {
    /** Factory PID of the bindings. */
    public static final String FACTORY_PID = "dev.virtuoso.policy.binding";

    private final Map<String, Binding> bindings = new TreeMap<>();
    private final Map<String, MultipathConnection> connections = new TreeMap<>();
    private final Map<String, String> problems = new TreeMap<>();
    private final List<String> loadBalancers = new ArrayList<>();
    private final List<String> congestionAvoidances = new ArrayList<>();
    private final DefaultPolicies defaults;

    /** The component's constructor. */
    public PolicyBindings() {
        this(new DefaultPolicies());
    }

    PolicyBindings(DefaultPolicies defaults) {
        this.defaults = defaults;
    }

    @Override
    public String getName() {
        return "Virtuoso policy bindings";
    }

    @Override
    public void updated(String pid, Dictionary<String, ?> properties) throws ConfigurationException {
        Binding b;
        try {
            b = Binding.parse(pid, properties);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException(null, e.getMessage(), e);
        }
        synchronized (this) {
            bindings.put(pid, b);
            for (MultipathConnection c : connections.values()) {
                apply(c);
            }
        }
    }

    @Override
    public synchronized void deleted(String pid) {
        bindings.remove(pid);
    }

    /** @param c a connection that appeared */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    synchronized void addConnection(MultipathConnection c) {
        connections.put(c.id(), c);
        apply(c);
    }

    synchronized void removeConnection(MultipathConnection c) {
        connections.remove(c.id());
        problems.remove(c.id());
    }

    /**
     * @param p a load-balancing policy
     * @param props its service properties
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            service = LoadBalancerPolicy.class)
    void addLoadBalancer(LoadBalancerPolicy p, Map<String, Object> props) {
        // the default is published outside this object's lock (publishing calls back into it)
        defaults.addLoadBalancer(p, props);
        synchronized (this) {
            loadBalancers.add(String.valueOf(props.get(LoadBalancerPolicy.NAME_PROPERTY)));
            applyAll();
        }
    }

    void removeLoadBalancer(LoadBalancerPolicy p, Map<String, Object> props) {
        defaults.removeLoadBalancer(p);
        synchronized (this) {
            loadBalancers.remove(String.valueOf(props.get(LoadBalancerPolicy.NAME_PROPERTY)));
        }
    }

    /**
     * @param p a congestion-avoidance policy
     * @param props its service properties
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            service = CongestionAvoidancePolicy.class)
    void addCongestionAvoidance(CongestionAvoidancePolicy p, Map<String, Object> props) {
        defaults.addCongestionAvoidance(p, props);
        synchronized (this) {
            congestionAvoidances.add(String.valueOf(props.get(LoadBalancerPolicy.NAME_PROPERTY)));
            applyAll();
        }
    }

    void removeCongestionAvoidance(CongestionAvoidancePolicy p, Map<String, Object> props) {
        defaults.removeCongestionAvoidance(p);
        synchronized (this) {
            congestionAvoidances.remove(String.valueOf(props.get(LoadBalancerPolicy.NAME_PROPERTY)));
        }
    }

    /**
     * Publishes the default policies ({@link DefaultPolicies}) once the component is active.
     *
     * @param context this bundle's context
     */
    @Activate
    void activate(BundleContext context) {
        defaults.start((type, service, properties) -> {
            ServiceRegistration<?> r = context.registerService(type.getName(), service, properties);
            return () -> {
                try {
                    r.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // the bundle is stopping: the framework withdrew it
                }
            };
        });
    }

    @Deactivate
    void deactivate() {
        defaults.stop();
    }

    /** A policy appeared: connections bound to it that run on a fallback (or never got it) return to it. */
    private void applyAll() {
        for (MultipathConnection c : connections.values()) {
            apply(c);
        }
    }

    /** The binding of a connection: its own, else the first {@code *} one. */
    private Binding bindingOf(String connectionId) {
        Binding any = null;
        for (Binding b : bindings.values()) {
            if (b.connection().equals(connectionId)) {
                return b;
            }
            if (any == null && b.wildcard()) {
                any = b;
            }
        }
        return any;
    }

    private void apply(MultipathConnection c) {
        Binding b = bindingOf(c.id());
        if (b == null) {
            problems.remove(c.id());
            return;
        }
        StringBuilder failed = new StringBuilder();
        if (!b.loadBalancer().isEmpty() && !b.loadBalancer().equals(c.loadBalancer())) {
            try {
                c.setLoadBalancer(b.loadBalancer());
            } catch (VirtuosoException | RuntimeException e) {
                failed.append("load balancer ").append(b.loadBalancer()).append(": ").append(e.getMessage());
            }
        }
        if (!b.congestionAvoidance().isEmpty() && !b.congestionAvoidance().equals(c.congestionAvoidance())) {
            try {
                c.setCongestionAvoidance(b.congestionAvoidance());
            } catch (VirtuosoException | RuntimeException e) {
                failed.append(failed.length() > 0 ? "; " : "").append("congestion avoidance ")
                        .append(b.congestionAvoidance()).append(": ").append(e.getMessage());
            }
        }
        if (failed.length() > 0) {
            problems.put(c.id(), "binding " + b.pid() + ": " + failed);
        } else {
            problems.remove(c.id());
        }
    }

    // ---- Gogo ----

    /**
     * Gogo {@code virtuoso:loadbalancer <connection> [name]}: shows, or switches at the next chunk
     * boundary, one connection's load-balancing policy.
     *
     * @param args the connection identifier, optionally followed by a policy name
     */
    public void loadbalancer(String... args) {
        System.out.println(choose("loadbalancer", "load balancer", args));
    }

    /**
     * Gogo {@code virtuoso:congestionavoidance <connection> [name]}.
     *
     * @param args the connection identifier, optionally followed by a policy name
     */
    public void congestionavoidance(String... args) {
        System.out.println(choose("congestionavoidance", "congestion avoidance", args));
    }

    /** Gogo {@code virtuoso:policies}: registered policies, bindings and each connection's state. */
    public void policies() {
        System.out.print(policiesText());
    }

    synchronized String choose(String command, String what, String... args) {
        if (args.length == 0 || args.length > 2 || args[0].equals("--help") || args[0].equals("-h")) {
            return "usage: " + command + " CONNECTION [NAME]: shows or switches the connection's " + what
                    + " (connections: " + (connections.isEmpty() ? "none" : String.join(", ", connections.keySet()))
                    + "; policies lists the names)";
        }
        MultipathConnection c = connections.get(args[0]);
        if (c == null) {
            return unknown(args[0]);
        }
        boolean lb = command.equals("loadbalancer");
        if (args.length == 1) {
            return "connection " + c.id() + " " + what + " " + (lb ? c.loadBalancer() : c.congestionAvoidance());
        }
        try {
            if (lb) {
                c.setLoadBalancer(args[1]);
            } else {
                c.setCongestionAvoidance(args[1]);
            }
            return "connection " + c.id() + " " + what + " -> " + args[1];
        } catch (VirtuosoException | RuntimeException e) {
            return "connection " + c.id() + ": " + e.getMessage();
        }
    }

    String policiesText() {
        // read before taking this object's lock: the defaults' lock is taken first elsewhere
        String defaultLb = defaults.loadBalancer();
        String defaultCc = defaults.congestionAvoidance();
        String candidates = defaults.candidates();
        synchronized (this) {
            return policiesText(defaultLb, defaultCc, candidates);
        }
    }

    private String policiesText(String defaultLb, String defaultCc, String candidates) {
        StringBuilder sb = new StringBuilder();
        sb.append("load balancers: ").append(names(loadBalancers, ConnectOptions.BUILTIN_ROUND_ROBIN)).append('\n');
        sb.append("congestion avoidance: ").append(names(congestionAvoidances, ConnectOptions.BUILTIN_FIXED_CHUNK))
                .append('\n');
        sb.append(ConnectOptions.DEFAULT_POLICY).append(": lb=").append(defaultLb == null ? "none registered" : defaultLb)
                .append(" cc=").append(defaultCc == null ? "none registered" : defaultCc).append(" (candidates by ")
                .append(DefaultPolicyRank.PROPERTY).append(": ").append(candidates).append(")\n");
        for (Binding b : bindings.values()) {
            sb.append("binding ").append(b.pid()).append(": connection ").append(b.connection()).append(" lb=")
                    .append(b.loadBalancer().isEmpty() ? "-" : b.loadBalancer()).append(" cc=")
                    .append(b.congestionAvoidance().isEmpty() ? "-" : b.congestionAvoidance()).append('\n');
        }
        for (MultipathConnection c : connections.values()) {
            sb.append("connection ").append(c.id()).append(": lb=").append(c.loadBalancer()).append(" cc=")
                    .append(c.congestionAvoidance());
            String p = problems.get(c.id());
            Binding b = bindingOf(c.id());
            if (p != null) {
                sb.append(" NOT APPLIED ").append(p);
            }
            if (b != null && (waiting(b.loadBalancer(), c.loadBalancer(), loadBalancers)
                    || waiting(b.congestionAvoidance(), c.congestionAvoidance(), congestionAvoidances))) {
                sb.append(" (on the fallback: binding ").append(b.pid())
                        .append(" names a policy not registered now; the connection returns to it when it registers)");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private static boolean waiting(String bound, String inUse, List<String> registered) {
        return !bound.isEmpty() && !bound.equals(inUse) && !registered.contains(bound);
    }

    private static String names(List<String> registered, String builtin) {
        List<String> all = new ArrayList<>(registered);
        all.add(builtin);
        Collections.sort(all);
        return String.join(", ", new LinkedHashSet<>(all));
    }

    private static String unknown(String connectionId) {
        return "no connection " + connectionId;
    }

    /** @return copy of the problems by connection id (for tests) */
    synchronized Map<String, String> problems() {
        return new HashMap<>(problems);
    }
}
