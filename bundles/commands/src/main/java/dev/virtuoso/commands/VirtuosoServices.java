package dev.virtuoso.commands;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * The services the commands use, tracked dynamically so every command is available even when a
 * service is missing, and can then say exactly what is missing instead of never appearing.
 * Internal to this bundle.
 */
@Component(service = VirtuosoServices.class, immediate = true)
public class VirtuosoServices {

    private volatile MultipathConnector connector;
    private volatile ConfigurationAdmin configAdmin;
    private final List<Named<VerbsProvider>> providers = new CopyOnWriteArrayList<>();
    private final List<Named<LoadBalancerPolicy>> loadBalancers = new CopyOnWriteArrayList<>();
    private final List<Named<CongestionAvoidancePolicy>> congestionAvoidances = new CopyOnWriteArrayList<>();
    private volatile Path home = Path.of("").toAbsolutePath();
    private volatile BundleContext context;

    /**
     * A service with the name it is registered under.
     *
     * @param service the service object
     * @param name its name property
     * @param <T> service type
     */
    public record Named<T>(T service, String name) {
    }

    @Activate
    void activate(BundleContext ctx) {
        context = ctx;
        String h = ctx.getProperty("virtuoso.home");
        if (h != null && !h.isBlank()) {
            home = Path.of(h);
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setConnector(MultipathConnector c) {
        connector = c;
    }

    void unsetConnector(MultipathConnector c) {
        if (connector == c) {
            connector = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setConfigAdmin(ConfigurationAdmin c) {
        configAdmin = c;
    }

    void unsetConfigAdmin(ConfigurationAdmin c) {
        if (configAdmin == c) {
            configAdmin = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addProvider(VerbsProvider p, Map<String, Object> props) {
        providers.add(new Named<>(p, String.valueOf(props.getOrDefault(VerbsProvider.PROVIDER_PROPERTY, p.name()))));
    }

    void removeProvider(VerbsProvider p) {
        providers.removeIf(n -> n.service() == p);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLoadBalancer(LoadBalancerPolicy p, Map<String, Object> props) {
        loadBalancers.add(new Named<>(p, String.valueOf(props.getOrDefault(LoadBalancerPolicy.NAME_PROPERTY, p.name()))));
    }

    void removeLoadBalancer(LoadBalancerPolicy p) {
        loadBalancers.removeIf(n -> n.service() == p);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addCongestionAvoidance(CongestionAvoidancePolicy p, Map<String, Object> props) {
        congestionAvoidances.add(new Named<>(p,
                String.valueOf(props.getOrDefault(LoadBalancerPolicy.NAME_PROPERTY, p.name()))));
    }

    void removeCongestionAvoidance(CongestionAvoidancePolicy p) {
        congestionAvoidances.removeIf(n -> n.service() == p);
    }

    /**
     * Waits for the connector service (it may be re-registered while a provider is reconfigured).
     *
     * @param timeout maximum wait
     * @param unit unit of the wait
     * @return the connector
     * @throws IOException if none is registered in time, naming the bundle that publishes it
     * @throws InterruptedException if interrupted
     */
    public MultipathConnector connector(long timeout, TimeUnit unit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            MultipathConnector c = connector;
            if (c != null) {
                return c;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("no MultipathConnector service (published by the dev.virtuoso.qpmanager "
                        + "bundle; is the virtuoso-core feature installed and started?)");
            }
            Thread.sleep(20);
        }
    }

    /** @return the ConfigurationAdmin service @throws IOException if there is none */
    public ConfigurationAdmin configAdmin() throws IOException {
        ConfigurationAdmin c = configAdmin;
        if (c == null) {
            throw new IOException("no ConfigurationAdmin service (org.apache.felix.configadmin is not active)");
        }
        return c;
    }

    /** @return the verbs providers, in registration order */
    public List<Named<VerbsProvider>> providers() {
        return List.copyOf(providers);
    }

    /** @return names of the registered load-balancing policies, sorted */
    public TreeSet<String> loadBalancerNames() {
        TreeSet<String> s = new TreeSet<>();
        loadBalancers.forEach(n -> s.add(n.name()));
        return s;
    }

    /** @return names of the registered congestion-avoidance policies, sorted */
    public TreeSet<String> congestionAvoidanceNames() {
        TreeSet<String> s = new TreeSet<>();
        congestionAvoidances.forEach(n -> s.add(n.name()));
        return s;
    }

    /**
     * @return the commands bundle's context, for services of optional bundles the commands do not
     *     track (looked up when used), or {@code null} outside a framework
     */
    public BundleContext bundleContext() {
        return context;
    }

    /** @return the directory the launcher ran from ({@code virtuoso.home}), where results/ goes */
    public Path home() {
        return home;
    }
}
