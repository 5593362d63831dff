package dev.virtuoso.verbs.soft;

import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricHost;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.api.FabricControl;

/**
 * Registers the soft RNIC as the {@code provider=soft} {@link VerbsProvider} service, configured
 * through ConfigAdmin (PID {@value #PID}); with no configuration it offers one device,
 * {@code soft0}, on the UDP wire at 127.0.0.1:4791. With {@code wire=fabric} it also registers the
 * fabric's {@link FabricControl} (link down/up, rates, counters) for the lifetime of the provider.
 * Any configuration change re-creates the provider; deactivation closes every device it opened
 * (threads, sockets) and the fabric.
 */
@Component(service = VerbsProvider.class, configurationPid = SoftVerbsComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL,
        // ranked below the default 0 of providers of real devices: a connection that names no provider
        // gets an RNIC where one is bound, the soft RNIC otherwise
        property = {VerbsProvider.PROVIDER_PROPERTY + "=" + SoftVerbsProvider.NAME, "service.ranking:Integer=-1"})
@Designate(ocd = SoftVerbsComponent.Config.class)
public final class SoftVerbsComponent implements VerbsProvider {
    /** The configuration PID. */
    public static final String PID = "dev.virtuoso.verbs.soft";

    /** Metatype of the soft RNIC configuration. */
    @ObjectClassDefinition(name = "Virtuoso soft RNIC",
            description = "Pure-Java RoCEv2 RC transport over UDP or an in-process fabric")
    public @interface Config {
        @AttributeDefinition(name = "Wire",
                description = "udp: real UDP sockets, one per vNIC address (loopback aliases "
                        + "127.0.0.x work without root on Linux). fabric: an in-process emulated "
                        + "network built from 'fabricSpec'; its hosts become the devices.",
                options = {@Option(label = "UDP", value = "udp"),
                    @Option(label = "In-process fabric", value = "fabric")})
        String wire() default "udp";

        @AttributeDefinition(name = "Devices (UDP wire)",
                description = "One entry per device: name=address[,address...]; the addresses are "
                        + "its vNICs in GID order, e.g. 'server=127.0.1.1,127.0.1.2'.")
        String[] devices() default {"soft0=127.0.0.1"};

        @AttributeDefinition(name = "UDP port",
                description = "Local RoCEv2 UDP port of every vNIC (4791 on hardware); use "
                        + "different ports or addresses for several instances on one host; 0 picks "
                        + "a free port.", min = "0", max = "65535")
        int udpPort() default SoftRnicConfig.ROCE_PORT;

        @AttributeDefinition(name = "Fabric spec (fabric wire)",
                description = "Hosts and links, e.g. 'A=10.0.0.1,10.0.1.1 B=10.0.0.2,10.0.1.2; "
                        + "link 10.0.0.1-10.0.0.2 rate=1g delay=50us; link * rate=10g'. "
                        + "Each host becomes a device named after it.")
        String fabricSpec() default "";

        @AttributeDefinition(name = "ICRC check",
                description = "Verify the ICRC of received packets (IPv4 with the sender's IP ID "
                        + "unknown: a Java socket cannot see it). auto and on: verify; off: do not.",
                options = {@Option(label = "auto", value = "auto"), @Option(label = "on", value = "on"),
                    @Option(label = "off", value = "off")})
        String icrcCheck() default "auto";

        @AttributeDefinition(name = "Window (packets)",
                description = "Unacknowledged PSNs a requester may have outstanding.",
                min = "8", max = "4096")
        int windowPackets() default 128;

        @AttributeDefinition(name = "Idle spin (microseconds)",
                description = "How long an idle engine thread spins before parking.", min = "0")
        int spinMicros() default 20;

        @AttributeDefinition(name = "Idle yield (microseconds)",
                description = "How long an idle engine thread, after its spin, yields the processor in a loop"
                        + " before parking: saves a thread wake-up per message in request-response traffic on"
                        + " machines with fewer cores than busy threads; costs processor time while traffic"
                        + " trickles. 0: park after the spin.", min = "0")
        int yieldMicros() default 0;

        @AttributeDefinition(name = "Run by CQ pollers",
                description = "A thread that finds one of the device's CQs empty runs the engine's duty cycle"
                        + " itself while the engine thread stands back: a packet crosses no thread hand-off"
                        + " inside the device, for the lowest latency with busy-polling applications. The"
                        + " pollers then pay for the device's work, which lowers throughput with few cores."
                        + " The engine thread takes over 1 ms after the last poll or when a poller arms a CQ.")
        boolean invokeOnPoll() default false;

        @AttributeDefinition(name = "Shared receive queues",
                description = "Whether the devices offer SRQs; false makes them report max_srq = 0 and refuse"
                        + " createSrq, like a binding without SRQs (the core then uses per-QP receive queues).")
        boolean sharedReceiveQueues() default true;

        @AttributeDefinition(name = "Check source port",
                description = "Accept packets for a connected QP only from the UDP port its peer "
                        + "listens on (soft RNIC peers). Turn off for Linux rxe or hardware peers, "
                        + "which choose source ports per flow; the source address is always checked.")
        boolean checkSourcePort() default true;
    }

    private SoftVerbsProvider provider;
    private FabricNetwork fabric;
    private ServiceRegistration<FabricControl> controlRegistration;

    @Activate
    void activate(BundleContext context, Config config) {
        start(config);
        if (fabric != null && context != null) {
            controlRegistration = context.registerService(FabricControl.class, fabric.control(),
                    new Hashtable<>(Map.of(FabricControl.FABRIC_NAME_PROPERTY, fabric.name())));
        }
    }

    /** Creates the provider (and the fabric) from a configuration; also used without OSGi. */
    void start(Config config) {
        try {
            provider = new SoftVerbsProvider(devices(config));
        } catch (RuntimeException e) {
            // a refused configuration must not leave the fabric's thread behind: DS will not deactivate
            if (fabric != null) {
                fabric.close();
                fabric = null;
            }
            throw e;
        }
    }

    private List<SoftRnicConfig> devices(Config config) {
        List<SoftRnicConfig> devices = new ArrayList<>();
        String wire = config.wire().trim().toLowerCase();
        if ("fabric".equals(wire)) {
            fabric = FabricNetwork.fromSpec("soft", config.fabricSpec());
            for (FabricHost h : fabric.hosts()) {
                devices.add(tune(SoftRnicConfig.builder(h.name()).fabric(fabric, h.name()), config)
                        .build());
            }
        } else if ("udp".equals(wire)) {
            for (String entry : config.devices()) {
                devices.add(tune(udpDevice(entry), config).udpPort(config.udpPort()).build());
            }
        } else {
            throw new IllegalArgumentException("wire must be udp or fabric: " + config.wire());
        }
        return devices;
    }

    private static SoftRnicConfig.Builder udpDevice(String entry) {
        int eq = entry.indexOf('=');
        if (eq <= 0 || eq == entry.length() - 1) {
            throw new IllegalArgumentException("device entry must be name=address[,address...]: "
                    + entry);
        }
        return SoftRnicConfig.builder(entry.substring(0, eq).trim())
                .addressLiterals(entry.substring(eq + 1).split(","));
    }

    private static SoftRnicConfig.Builder tune(SoftRnicConfig.Builder b, Config config) {
        String icrc = config.icrcCheck().trim().toLowerCase();
        if ("on".equals(icrc)) {
            b.icrcCheck(true);
        } else if ("off".equals(icrc)) {
            b.icrcCheck(false);
        }
        return b.checkSourcePort(config.checkSourcePort())
                .windowPackets(config.windowPackets())
                .spinNanos(config.spinMicros() * 1000L).yieldNanos(config.yieldMicros() * 1000L)
                .invokeOnPoll(config.invokeOnPoll())
                .sharedReceiveQueues(config.sharedReceiveQueues());
    }

    @Deactivate
    void deactivate() {
        if (controlRegistration != null) {
            controlRegistration.unregister();
            controlRegistration = null;
        }
        provider.close();
        if (fabric != null) {
            fabric.close();
        }
    }

    @Override
    public String name() {
        return SoftVerbsProvider.NAME;
    }

    @Override
    public List<RdmaDevice> devices() {
        return provider.devices();
    }

    @Override
    public IbvContext openDevice(String deviceName) throws VerbsException {
        return provider.openDevice(deviceName);
    }
}
