package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.commands.SecretCommand;
import dev.virtuoso.commands.SoftProviderConfig;
import dev.virtuoso.commands.VirtuosoServices;
import dev.virtuoso.commands.VnicsCommand;
import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * What both bench sides share: choosing the provider, device and vNICs (and configuring the soft
 * RNIC's UDP wire for them), the connection options, the registered data and control buffers,
 * and waiting for one completion with a timeout. Owned by the client or server run, which closes it.
 */
final class BenchEndpoint implements AutoCloseable {

    /** Waiting this long for a completion fails the run. */
    static final long COMPLETION_TIMEOUT_SECONDS = 30;

    /** Device name the bench gives the soft RNIC when it configures it. */
    static final String SOFT_DEVICE = "bench";

    final String provider;
    final String device;
    final List<InetAddress> vnics;
    final ConnectOptions options;
    private final SoftProviderConfig softConfig;
    /** How the engine runs, from the configuration ({@link #engineMode}), for the header and JSON. */
    String engine = "agents";
    MultipathConnection connection;
    MemoryRegion data;
    ByteBuffer dataBuffer;
    MemoryRegion control;
    ByteBuffer controlBuffer;
    private final MpCompletion one = new MpCompletion();
    /** The provider's service, for its device counters when a control message fails; null if not found. */
    private VerbsProvider verbs;

    private BenchEndpoint(String provider, String device, List<InetAddress> vnics, ConnectOptions options,
            SoftProviderConfig softConfig) {
        this.provider = provider;
        this.device = device;
        this.vnics = vnics;
        this.options = options;
        this.softConfig = softConfig;
    }

    /**
     * Chooses provider, device and vNICs, configuring the soft RNIC if it is used.
     *
     * @param services the commands' services
     * @param o the bench options
     * @return the endpoint, not yet connected
     * @throws IOException if the provider or device is unavailable
     * @throws InterruptedException if interrupted
     */
    static BenchEndpoint prepare(VirtuosoServices services, BenchOptions o) throws IOException, InterruptedException {
        String provider = o.provider() != null ? o.provider()
                : hasDevices(services, "ibv") ? "ibv" : hasDevices(services, "disni") ? "disni" : "soft";
        String device = o.device();
        List<InetAddress> vnics = new ArrayList<>(o.vnics());
        SoftProviderConfig soft = null;
        RdmaDevice existing = provider.equals("soft") && device != null ? find(services, provider, device) : null;
        if (existing != null) {
            // a soft device configured beforehand (ConfigAdmin, the shell): use it as it is
            if (o.windowPackets() > 0) {
                throw new CommandError("--window cannot change the soft device '" + device
                        + "' configured beforehand; set windowPackets of " + SoftProviderConfig.PID + " instead");
            }
            if (vnics.isEmpty()) {
                existing.vnics().stream().limit(o.paths()).forEach(v -> vnics.add(v.address()));
            }
        } else if (provider.equals("soft")) {
            if (vnics.isEmpty()) {
                if (o.client() && !InetAddress.getByName(o.host()).isLoopbackAddress()) {
                    throw new CommandError("the soft RNIC needs --vnics for a server that is not on loopback");
                }
                vnics.addAll(o.defaultLoopbackVnics());
            }
            device = device != null ? device : SOFT_DEVICE;
            List<String> addrs = vnics.stream().map(InetAddress::getHostAddress).toList();
            soft = SoftProviderConfig.udp(services, List.of(device + "=" + String.join(",", addrs)), o.udpPort(),
                    o.windowPackets());
        } else {
            RdmaDevice d = device(services, provider, device);
            device = d.name();
            if (vnics.isEmpty()) {
                for (Vnic v : d.vnics()) {
                    if (vnics.size() < o.paths()) {
                        vnics.add(v.address());
                    }
                }
                if (vnics.size() < o.paths()) {
                    throw new IOException(provider + " device " + device + " has " + d.vnics().size()
                            + " vNICs, -q asks for " + o.paths());
                }
            }
        }
        ConnectOptions.Builder b = ConnectOptions.builder().provider(provider).device(device).localAddresses(vnics)
                .handshakeTimeout(Duration.ofSeconds(10)).maxOutstanding(Math.max(64, 2 * o.txDepth()));
        if (o.policy() != null) {
            b.loadBalancer(o.policy());
        }
        if (o.cc() != null) {
            b.congestionAvoidance(ccName(o.cc()));
            ccProperties(o.cc()).forEach(b::policyProperty);
        }
        if (o.retryCount() >= 0) {
            b.retryCount(o.retryCount());
        }
        if (o.ackTimeout() > 0) {
            b.ackTimeout(o.ackTimeout());
        }
        if (o.failoverSeconds() > 0) {
            b.failoverTimeout(Duration.ofSeconds(o.failoverSeconds()));
        }
        if (o.secret() != null) {
            b.sharedSecret(o.secret());
        }
        BenchEndpoint e = new BenchEndpoint(provider, device, List.copyOf(vnics), b.build(), soft);
        for (VirtuosoServices.Named<VerbsProvider> p : services.providers()) {
            if (p.name().equals(provider)) {
                e.verbs = p.service();
            }
        }
        e.engine = engineMode(services, provider);
        return e;
    }

    /**
     * @return "agents", or that the polling threads run the engine ({@code engineInvokeOnPoll} of the
     *     connector's configuration) and, on the soft RNIC, whether they run its engine too
     */
    static String engineMode(VirtuosoServices services, String provider) {
        boolean core = configured(services, SecretCommand.CONNECTOR_PID, "engineInvokeOnPoll");
        String mode = core ? "run by the polling threads (engineInvokeOnPoll)" : "agents";
        if (provider.equals("soft") && configured(services, SoftProviderConfig.PID, "invokeOnPoll")) {
            mode += "; soft RNIC run by its CQ pollers (invokeOnPoll)";
        }
        return mode;
    }

    /** @return whether the boolean property is configured true (false without ConfigAdmin or configuration) */
    private static boolean configured(VirtuosoServices services, String pid, String key) {
        try {
            org.osgi.service.cm.Configuration[] cs = services.configAdmin()
                    .listConfigurations("(" + org.osgi.framework.Constants.SERVICE_PID + "=" + pid + ")");
            Object v = cs == null || cs.length == 0 || cs[0].getProperties() == null ? null
                    : cs[0].getProperties().get(key);
            return v != null && Boolean.parseBoolean(String.valueOf(v));
        } catch (IOException | org.osgi.framework.InvalidSyntaxException e) {
            return false;
        }
    }

    /**
     * Waits (at most 10 s) until the policies these options name are registered: a framework that
     * has just started may still be starting the policy bundles and the binding (which publishes
     * {@code default}), and a connection made before would run on its fallback until they come.
     * Goes on with a note on stderr if they do not come.
     *
     * @param services the commands' services
     * @throws InterruptedException if interrupted
     */
    void awaitPolicies(VirtuosoServices services) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            boolean lb = options.loadBalancer().equals(ConnectOptions.BUILTIN_ROUND_ROBIN)
                    || services.loadBalancerNames().contains(options.loadBalancer());
            boolean cc = options.congestionAvoidance().equals(ConnectOptions.BUILTIN_FIXED_CHUNK)
                    || services.congestionAvoidanceNames().contains(options.congestionAvoidance());
            if (lb && cc) {
                return;
            }
            if (System.nanoTime() > deadline) {
                System.err.println("bench: policies " + options.loadBalancer() + "/" + options.congestionAvoidance()
                        + " not all registered after 10 s; the connection starts on its fallback");
                return;
            }
            Thread.sleep(20);
        }
    }

    /** @return the policy name of {@code --cc NAME[:KEY=VALUE,...]} */
    static String ccName(String cc) {
        int colon = cc.indexOf(':');
        return colon < 0 ? cc : cc.substring(0, colon);
    }

    /**
     * @param cc {@code --cc NAME[:KEY=VALUE,...]}
     * @return the policy properties it sets, each key prefixed with {@code NAME.}
     */
    static Map<String, String> ccProperties(String cc) {
        int colon = cc.indexOf(':');
        Map<String, String> props = new LinkedHashMap<>();
        if (colon < 0) {
            return props;
        }
        for (String kv : cc.substring(colon + 1).split(",", -1)) {
            int eq = kv.indexOf('=');
            if (eq <= 0 || eq == kv.length() - 1) {
                throw new CommandError("--cc NAME:KEY=VALUE,...: malformed '" + kv + "'");
            }
            props.put(ccName(cc) + "." + kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return props;
    }

    private static boolean hasDevices(VirtuosoServices services, String name) {
        for (VirtuosoServices.Named<VerbsProvider> p : services.providers()) {
            try {
                if (p.name().equals(name) && !p.service().devices().isEmpty()) {
                    return true;
                }
            } catch (VerbsException e) {
                // not usable
            }
        }
        return false;
    }

    private static RdmaDevice find(VirtuosoServices services, String provider, String device) {
        for (VirtuosoServices.Named<VerbsProvider> p : services.providers()) {
            try {
                if (p.name().equals(provider)) {
                    for (RdmaDevice d : p.service().devices()) {
                        if (d.name().equals(device)) {
                            return d;
                        }
                    }
                }
            } catch (VerbsException e) {
                // not usable
            }
        }
        return null;
    }

    private static RdmaDevice device(VirtuosoServices services, String provider, String device) throws IOException {
        for (VirtuosoServices.Named<VerbsProvider> p : services.providers()) {
            if (!p.name().equals(provider)) {
                continue;
            }
            List<RdmaDevice> devices = p.service().devices();
            for (RdmaDevice d : devices) {
                if (device == null || d.name().equals(device)) {
                    return d;
                }
            }
            throw new IOException(provider + " has no device " + (device == null ? "" : "'" + device + "' ")
                    + "(devices: " + devices.stream().map(RdmaDevice::name).toList() + ")");
        }
        throw new IOException("no verbs provider '" + provider + "' is registered"
                + (provider.equals("soft") ? "" : " (" + VnicsCommand.whyNotRegistered(provider) + ")"));
    }

    /** Offset of the outgoing half of the control buffer. */
    static final int SEND_HALF = 0;
    /** Offset of the incoming half of the control buffer. */
    static final int RECV_HALF = BenchProtocol.CONTROL_BYTES / 2;

    /**
     * Registers the control buffer (two halves: outgoing, incoming) on the connection.
     *
     * @param conn the established connection
     * @throws IOException if registration fails
     */
    void attach(MultipathConnection conn) throws IOException {
        connection = conn;
        controlBuffer = ByteBuffer.allocateDirect(BenchProtocol.CONTROL_BYTES);
        control = conn.register(controlBuffer, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
    }

    /**
     * Registers the data buffer, readable and writable by the peer.
     *
     * @param dataBytes its size
     * @throws IOException if registration fails
     */
    void attachData(int dataBytes) throws IOException {
        dataBuffer = ByteBuffer.allocateDirect(dataBytes);
        data = connection.register(dataBuffer, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
    }

    /** @return the outgoing half of the control buffer */
    ByteBuffer outgoing() {
        return controlBuffer.slice(SEND_HALF, RECV_HALF);
    }

    /** @return the incoming half of the control buffer */
    ByteBuffer incoming() {
        return controlBuffer.slice(RECV_HALF, BenchProtocol.CONTROL_BYTES - RECV_HALF);
    }

    /**
     * Waits for the completion of a control message.
     *
     * @param opcode the kind expected, or {@code null} for any
     * @return its completion (reused object: read it before the next call)
     * @throws IOException if it fails or does not come within the timeout
     * @throws InterruptedException if interrupted
     */
    MpCompletion awaitControl(MpOpcode opcode) throws IOException, InterruptedException {
        String what = opcode != null ? opcode.toString() : "completion";
        if (!connection.awaitCompletion(one, COMPLETION_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IOException("no " + what + " within " + COMPLETION_TIMEOUT_SECONDS + " s; "
                    + BenchClient.pathSummary(connection.pathStats()) + deviceProblems());
        }
        if (!one.ok() || (opcode != null && one.opcode() != opcode)) {
            String ended = connection.endReason();
            throw new IOException("expected a successful " + what + ", got " + one
                    + "; " + BenchClient.pathSummary(connection.pathStats())
                    + (ended != null ? "; the connection ended: " + ended : "") + deviceProblems());
        }
        return one;
    }

    /**
     * @return the device's counters of drops, NAKs and retransmissions that are not zero (device-wide,
     *     so other connections' count too), as "; device NAME: COUNTER=n ...", or "" if none or unknown
     */
    private String deviceProblems() {
        return deviceProblems(verbs, device);
    }

    /** As {@link #deviceProblems()} for {@code device} of {@code verbs} (either may be null: ""). */
    static String deviceProblems(VerbsProvider verbs, String device) {
        if (verbs == null || device == null) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        try (IbvContext ctx = verbs.openDevice(device)) {
            ctx.counters().snapshot().forEach((c, n) -> {
                if (n > 0 && !c.name().startsWith("TX_") && !c.name().startsWith("RX_")) {
                    b.append(' ').append(c).append('=').append(n);
                }
            });
        } catch (Exception e) {
            return "; device " + device + " counters unreadable: " + e.getMessage();
        }
        return b.length() == 0 ? "" : "; device " + device + " (all its QPs):" + b;
    }

    /** @return a perftest-like description of the transport */
    String transport() {
        return provider.equals("soft") ? "RoCEv2 (soft RNIC, UDP wire)" : "RoCEv2/IB (" + provider + ")";
    }

    /** Deregisters the buffers and disconnects: the endpoint can take another connection. Idempotent. */
    void detach() {
        if (data != null) {
            data.close();
            data = null;
        }
        if (control != null) {
            control.close();
            control = null;
        }
        if (connection != null) {
            connection.disconnect(5, TimeUnit.SECONDS);
            connection = null;
        }
    }

    /** Deregisters, disconnects and restores the soft RNIC configuration. Idempotent. */
    @Override
    public void close() {
        detach();
        if (softConfig != null) {
            softConfig.close();
        }
    }
}
