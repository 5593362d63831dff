package dev.virtuoso.commands;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.commands.cli.CommandLineSpec;
import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * {@code virtuoso:vnics} (the launcher's {@code virtuoso paths}): every verbs provider's devices
 * and their vNICs, the addresses a connection can use as paths.
 */
@Component(service = VnicsCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=vnics"})
public class VnicsCommand {

    private static final CommandLineSpec SPEC = new CommandLineSpec("virtuoso paths", "", 0, 0)
            .option('P', "provider", "NAME", null, "only this verbs provider (soft, ibv, disni)");

    private final List<Registered> providers = new CopyOnWriteArrayList<>();

    private record Registered(VerbsProvider provider, String name) {
    }

    /**
     * @param provider a verbs provider service
     * @param props its service properties
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addProvider(VerbsProvider provider, Map<String, Object> props) {
        Object name = props.get(VerbsProvider.PROVIDER_PROPERTY);
        providers.add(new Registered(provider, name != null ? name.toString() : provider.name()));
    }

    void removeProvider(VerbsProvider provider) {
        providers.removeIf(r -> r.provider() == provider);
    }

    /**
     * Lists devices and vNICs.
     *
     * @param args {@code [--provider NAME]}
     */
    public void vnics(String... args) {
        ParsedArgs a = SPEC.parse(args);
        PrintStream out = System.out;
        if (a.help()) {
            out.print(SPEC.usage());
            return;
        }
        String only = a.value("provider");
        if (only != null && !KNOWN.contains(only)) {
            throw new CommandError("--provider must be soft, ibv or disni: " + only);
        }
        out.printf("%-9s %-12s %-40s %4s  %s%n", "provider", "device", "vNIC address", "gid", "netdev");
        for (Registered r : providers) {
            if (only == null || only.equals(r.name())) {
                print(out, r);
            }
        }
        for (String expected : KNOWN) {
            if ((only == null || only.equals(expected)) && providers.stream().noneMatch(r -> r.name().equals(expected))) {
                out.printf("%-9s (not registered: %s)%n", expected, whyNotRegistered(expected));
            }
        }
    }

    /** The verbs providers the commands know by name, in the order {@code paths} lists them. */
    public static final List<String> KNOWN = List.of("soft", "ibv", "disni");

    /**
     * @param provider soft, ibv or disni
     * @return what the provider needs to register, for a line saying it is not registered
     */
    public static String whyNotRegistered(String provider) {
        return switch (provider) {
            case "ibv" -> Runtime.version().feature() >= 22
                    ? "it needs libibverbs and an RDMA device; --verbose tells why"
                    : "it needs Java 22 or newer (this JVM is Java " + Runtime.version().feature()
                            + "), libibverbs and an RDMA device";
            case "disni" -> "it needs libdisni and an RDMA device; --verbose tells why";
            default -> "is virtuoso-soft installed?";
        };
    }

    private static void print(PrintStream out, Registered r) {
        List<RdmaDevice> devices;
        try {
            devices = r.provider().devices();
        } catch (VerbsException e) {
            out.printf("%-9s (cannot list devices: %s)%n", r.name(), e.getMessage());
            return;
        }
        if (devices.isEmpty()) {
            out.printf("%-9s (no device)%n", r.name());
        }
        for (RdmaDevice d : devices) {
            if (d.vnics().isEmpty()) {
                out.printf("%-9s %-12s (no vNIC)%n", r.name(), d.name());
            }
            for (Vnic v : d.vnics()) {
                out.printf("%-9s %-12s %-40s %4d  %s%n", r.name(), d.name(), v.address().getHostAddress(), v.gidIndex(),
                        v.netdev());
            }
        }
    }
}
