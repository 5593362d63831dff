package dev.virtuoso.qpmanager.internal;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.SecretFile;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.decomposer.Decomposer;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.qpmanager.internal.bootstrap.PeerLimits;
import dev.virtuoso.qpmanager.internal.engine.BootstrapLimits;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.EngineGroup;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.Reassembler;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.util.TypedProperties;

/**
 * The QP manager's {@link MultipathConnector} service. It binds every verbs provider by its
 * {@value VerbsProvider#PROVIDER_PROPERTY} property and every policy by
 * {@value LoadBalancerPolicy#NAME_PROPERTY}, all dynamically; connections opened through a
 * provider that goes away are disconnected, sessions of a policy that goes away move to the
 * fallback. {@code listen} and {@code connect} wait, bounded by the options' provider timeout, for
 * the provider they name (a re-configured provider is unbound, then bound anew). Stopping the component disconnects every connection it created. Established
 * connections are published as {@link MultipathConnection} services with
 * {@value ConnectionPublisher#ID_PROPERTY}. A {@link PathMonitorFactory} is used when one is
 * registered (optional, dynamic, greedy): new connections get a monitor from it; when it goes away,
 * connections using its monitors move back to the core's own path view before the unbind returns
 * (bounded by {@value #MONITOR_DETACH_TIMEOUT_MILLIS} ms). The configuration also sets the
 * bootstrap's limits and a shared-secret file used when the options carry no secret (see
 * docs/security.md). The component owns the {@link EngineGroup} whose agents serve every
 * connection ({@code engineAgents} threads named {@code virtuoso-engine-<n>}); deactivation
 * disconnects the connections, then stops the agents within {@code engineStopMillis}.
 */
@Component(service = MultipathConnector.class, configurationPid = ConnectorComponent.PID)
@Designate(ocd = ConnectorComponent.Config.class)
public final class ConnectorComponent implements MultipathConnector {
    private static final System.Logger LOG = System.getLogger(ConnectorComponent.class.getName());
    /** Configuration PID. */
    public static final String PID = "dev.virtuoso.qpmanager";
    /** Longest wait in the monitor factory's unbind for the connections to stop using it. */
    static final long MONITOR_DETACH_TIMEOUT_MILLIS = 2000;

    /** Connector-wide defaults (per-connection settings come with each call's options). */
    @ObjectClassDefinition(name = "Virtuoso QP manager", description = "Defaults of the multipath connector")
    public @interface Config {
        @AttributeDefinition(description = "Verbs provider used when the connect options name none; empty:"
                + " the bound provider with the highest service.ranking (the one bound first among equals)")
        String defaultProvider() default "";

        @AttributeDefinition(description = "Send-queue depth of every path QP", min = "1")
        int sendQueueDepth() default 128;

        @AttributeDefinition(description = "Most paths one connection may have at once", min = "1",
                max = "" + ConnectOptions.MAX_PATHS)
        int maxPaths() default ConnectOptions.MAX_PATHS;

        @AttributeDefinition(description = "Chunks the built-in congestion avoidance lets a path carry at once",
                min = "1")
        int builtinChunksPerPath() default 4;

        @AttributeDefinition(description = "Control-channel idle time before a heartbeat, ms", min = "1")
        long heartbeatMillis() default 1000;

        @AttributeDefinition(description = "Control-channel silence after which the peer is gone, ms", min = "2")
        long livenessMillis() default 10_000;

        @AttributeDefinition(description = "Engine agents (threads) serving all connections; 0: the machine's "
                + "processors, at most 4. Read when the component activates")
        int engineAgents() default 0;

        @AttributeDefinition(description = "How long a connection stays polled (its engine agent spinning) after "
                + "its last data-path work before it may go quiet, microseconds; 0: at once. Read when the "
                + "component activates", min = "0")
        long engineSpinMicros() default EngineGroup.DEFAULT_ACTIVE_SPIN_NANOS / 1000;

        @AttributeDefinition(description = "Application threads that poll a connection's completions run its "
                + "engine agent's duty cycle themselves; while they poll continuously (20 times a millisecond "
                + "or more) the agent's thread stands back until none has polled for 1 ms (Aeron's agent "
                + "invoker): a request-response exchange crosses no engine thread. For applications that spin "
                + "on pollCompletions. Read when the component activates")
        boolean engineInvokeOnPoll() default false;

        @AttributeDefinition(description = "Longest wait for the engine agents to stop when the component "
                + "deactivates, ms", min = "1")
        long engineStopMillis() default 5000;

        @AttributeDefinition(description = "Threads running the control channels of all connections (selectors); "
                + "0: one per 8 processors, 1..4. Read when the component activates", min = "0", max = "64")
        int controlThreads() default 0;

        @AttributeDefinition(description = "Publish established connections as MultipathConnection services")
        boolean publishConnections() default true;

        @AttributeDefinition(description = "Bootstrap shared-secret file (chmod 600, 16..4096 bytes) used by listen "
                + "and connect calls whose options carry no secret; empty: none")
        String secretFile() default "";

        @AttributeDefinition(description = "Bootstrap: accepted connections whose first frame has not arrived, "
                + "all sources together; more are closed at once", min = "1")
        int maxPendingConnections() default 1024;

        @AttributeDefinition(description = "Bootstrap: handshakes run at once (one thread each)", min = "1")
        int maxHandshakes() default 32;

        @AttributeDefinition(description = "Bootstrap: connections one source address may have pending or in a "
                + "handshake at once", min = "1")
        int maxHandshakesPerSource() default 8;

        @AttributeDefinition(description = "Bootstrap: overall deadline of one handshake, ms", min = "1")
        long handshakeDeadlineMillis() default 10_000;

        @AttributeDefinition(description = "Bootstrap: established connections waiting for accept; more are "
                + "refused during the handshake", min = "1")
        int acceptQueue() default 64;

        @AttributeDefinition(description = "Bootstrap: the kernel's listen backlog", min = "1")
        int listenBacklog() default 256;

        @AttributeDefinition(description = "Bootstrap: most MP_RECVs a peer may announce (about 57 bytes each "
                + "here)", min = "1", max = "1048576")
        int peerMaxReceives() default 16_384;

        @AttributeDefinition(description = "Bootstrap: most small-message slots a peer may announce", min = "1",
                max = "65536")
        int peerMaxSlots() default 4096;

        @AttributeDefinition(description = "Bootstrap: largest small-message slot a peer may announce, bytes",
                min = "64", max = "1048576")
        int peerMaxSlotBytes() default 1 << 20;

        @AttributeDefinition(description = "Bootstrap: largest probe scratch region a peer may announce, bytes",
                min = "0", max = "1048576")
        int peerMaxScratchBytes() default 1 << 20;
    }

    private final BoundProviders providers = new BoundProviders();
    private final PolicyRegistry registry = new PolicyRegistry();

    @Reference
    private Decomposer decomposer;

    @Reference
    private Reassembler reassembler;

    private volatile Connector connector;
    private EngineGroup engines;
    private long engineStopMillis;
    /** The settings read only at activation, as activated ({@link #activationSettings}). */
    private String activatedWith;
    /** Such settings changed since activation and not yet in effect, or null. */
    private volatile String awaitingActivation;
    private volatile PathMonitorFactory monitors;
    private volatile byte[] secret;
    private ConnectionPublisher publisher;

    static BootstrapLimits bootstrapLimits(Config c) {
        return new BootstrapLimits(c.maxPendingConnections(), c.maxHandshakes(), c.maxHandshakesPerSource(),
                c.handshakeDeadlineMillis(), c.acceptQueue(), c.listenBacklog(), new PeerLimits(c.peerMaxReceives(),
                        c.peerMaxSlots(), c.peerMaxSlotBytes(), c.peerMaxScratchBytes()));
    }

    /** @return the configured secret, or {@code null} */
    static byte[] secret(Config c) {
        String f = c.secretFile();
        if (f == null || f.isBlank()) {
            return null;
        }
        try {
            return SecretFile.read(Path.of(f.trim()));
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("secretFile of " + PID + ": " + e.getMessage(), e);
        }
    }

    static CoreSettings settings(Config c) {
        return new CoreSettings(c.defaultProvider(), c.sendQueueDepth(), c.maxPaths(), c.builtinChunksPerPath(),
                c.heartbeatMillis(), c.livenessMillis());
    }

    /** @return the configured number of engine agents, or the machine's default for 0 */
    static int engineAgents(Config c) {
        if (c.engineAgents() < 0) {
            throw new IllegalArgumentException("engineAgents of " + PID + " must be 0 (default) or more: "
                    + c.engineAgents());
        }
        return c.engineAgents() == 0 ? EngineGroup.defaultSize() : c.engineAgents();
    }

    @Activate
    void activate(Config config, BundleContext context) {
        // everything that can refuse the configuration first: a failed activation gets no deactivate
        CoreSettings settings = settings(config);
        BootstrapLimits limits = bootstrapLimits(config);
        byte[] s = secret(config);
        int agents = engineAgents(config);
        if (config.engineSpinMicros() < 0) {
            throw new IllegalArgumentException("engineSpinMicros of " + PID + " must be 0 or more: "
                    + config.engineSpinMicros());
        }
        engines = new EngineGroup(agents, TimeUnit.MICROSECONDS.toNanos(config.engineSpinMicros()),
                config.engineInvokeOnPoll());
        engineStopMillis = config.engineStopMillis();
        activatedWith = activationSettings(config);
        Connector c;
        try {
            c = new Connector(providers::get, decomposer, reassembler, registry, settings, engines,
                    config.controlThreads());
        } catch (RuntimeException e) {
            // no deactivate follows a failed activation: the agents' threads must stop here
            engines.close();
            engines = null;
            throw e;
        }
        c.bootstrapLimits(limits);
        secret = s;
        c.pathMonitors(monitors);
        if (config.publishConnections()) {
            publisher = new ConnectionPublisher(context);
            c.observer(publisher);
        }
        connector = c;
    }

    @Modified
    void modified(Config config) {
        byte[] s = secret(config); // an unfit file changes nothing
        connector.settings(settings(config));
        connector.bootstrapLimits(bootstrapLimits(config));
        secret = s;
        engineStopMillis = config.engineStopMillis();
        String wanted = activationSettings(config);
        awaitingActivation = wanted.equals(activatedWith) ? null : wanted;
        if (awaitingActivation != null) {
            // the engine agents and control threads serve the open connections: they are not
            // replaced under them, so say so instead of silently keeping the old values
            LOG.log(System.Logger.Level.WARNING, PID + ": " + wanted + " take effect when the component is "
                    + "activated again (restart bundle dev.virtuoso.qpmanager); running with " + activatedWith);
        }
    }

    /** The settings read only when the component activates (metatype: "Read when the component activates"). */
    static String activationSettings(Config c) {
        return "engineAgents=" + c.engineAgents() + " engineSpinMicros=" + c.engineSpinMicros()
                + " engineInvokeOnPoll=" + c.engineInvokeOnPoll() + " controlThreads=" + c.controlThreads();
    }

    /** @return settings read only at activation that were changed since and are not in effect, or null */
    String awaitingActivation() {
        return awaitingActivation;
    }

    /** @return the engine group serving this component's connections (tests) */
    EngineGroup engines() {
        return engines;
    }

    /** The options with the configured secret if they carry none. */
    private ConnectOptions withSecret(ConnectOptions o) {
        byte[] s = secret;
        return s == null || o.sharedSecret() != null ? o : o.toBuilder().sharedSecret(s).build();
    }

    @Deactivate
    void deactivate() {
        try {
            connector.close();
        } finally {
            // the connections are gone (or failed to leave in time): stop the agents, bounded
            engines.close(engineStopMillis);
            if (publisher != null) {
                publisher.close();
            }
        }
    }

    private static String name(Map<String, Object> props, String fallback) {
        return TypedProperties.of(props).getString(LoadBalancerPolicy.NAME_PROPERTY, fallback);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "removeProvider")
    void addProvider(VerbsProvider p, Map<String, Object> props) {
        providers.add(p, props);
        Connector c = connector;
        if (c != null) {
            c.providerAdded(p);
        }
    }

    void removeProvider(VerbsProvider p, Map<String, Object> props) {
        providers.remove(p, props);
        Connector c = connector;
        if (c != null) {
            c.providerGone(p);
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "removePathMonitors")
    void addPathMonitors(PathMonitorFactory f) {
        monitors = f;
        Connector c = connector;
        if (c != null) {
            c.pathMonitors(f);
        }
    }

    void removePathMonitors(PathMonitorFactory f) {
        if (monitors == f) {
            monitors = null;
        }
        Connector c = connector;
        if (c != null) {
            c.pathMonitorsGone(f, MONITOR_DETACH_TIMEOUT_MILLIS);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "removeLoadBalancer")
    void addLoadBalancer(LoadBalancerPolicy p, Map<String, Object> props) {
        registry.add(name(props, p.name()), p);
    }

    void removeLoadBalancer(LoadBalancerPolicy p, Map<String, Object> props) {
        registry.remove(name(props, p.name()), p);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY, unbind = "removeCongestionAvoidance")
    void addCongestionAvoidance(CongestionAvoidancePolicy p, Map<String, Object> props) {
        registry.add(name(props, p.name()), p);
    }

    void removeCongestionAvoidance(CongestionAvoidancePolicy p, Map<String, Object> props) {
        registry.remove(name(props, p.name()), p);
    }

    @Override
    public MultipathListener listen(InetSocketAddress bootstrap, ConnectOptions options) throws VirtuosoException {
        return connector.listen(bootstrap, withSecret(options));
    }

    @Override
    public MultipathConnection connect(InetSocketAddress remote, ConnectOptions options) throws VirtuosoException {
        return connector.connect(remote, withSecret(options));
    }
}
