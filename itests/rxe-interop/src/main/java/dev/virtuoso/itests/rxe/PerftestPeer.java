package dev.virtuoso.itests.rxe;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A perftest-compatible peer on the soft RNIC (UDP wire): runs a plan of {@link PeerCase}s against
 * perftest ({@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_bw}, without -R) in the
 * rxe guest, as its client or its server, over one or two paths.
 *
 * <pre>
 * PerftestPeer --plan FILE --host-ips A,B,C --guest-ips X,Y [--size 65536] [--iters 100]
 *              [--mtu 4096] [--timeout-ms 120000] [--udp-port 4791] [--ack-timeout 23]
 * </pre>
 * Exit status 0 if every case passed on our side, 1 otherwise, 2 for bad arguments.
 */
public final class PerftestPeer {
    private PerftestPeer() {
    }

    /**
     * @param args see the class comment
     * @throws IOException if the plan cannot be read
     */
    public static void main(String[] args) throws IOException {
        Map<String, String> a = parse(args);
        if (a == null || !a.containsKey("plan") || !a.containsKey("host-ips") || !a.containsKey("guest-ips")) {
            System.err.println("usage: PerftestPeer --plan FILE --host-ips A,B,C --guest-ips X,Y [--size N]"
                    + " [--iters N] [--mtu 4096] [--timeout-ms N] [--udp-port 4791] [--ack-timeout 23]");
            System.exit(2);
            return;
        }
        List<PeerCase> plan = PeerCase.parsePlan(Files.readAllLines(Path.of(a.get("plan"))));
        PeerSettings settings = new PeerSettings(Integer.parseInt(a.getOrDefault("size", "65536")),
                Integer.parseInt(a.getOrDefault("iters", "100")),
                IbvMtu.ofBytes(Integer.parseInt(a.getOrDefault("mtu", "4096"))),
                Integer.parseInt(a.getOrDefault("timeout-ms", "120000")), literals(a.get("host-ips")),
                literals(a.get("guest-ips")), Integer.parseInt(a.getOrDefault("ack-timeout", "23")));
        System.exit(run(plan, settings, Integer.parseInt(a.getOrDefault("udp-port", "4791")), System.out) ? 0 : 1);
    }

    /**
     * Opens a soft RNIC with the host addresses as vNICs and runs every case.
     *
     * @param plan the cases, in the order the guest runs them
     * @param settings sizes, addresses, timeouts
     * @param udpPort our RoCEv2 UDP port
     * @param out where the result lines go
     * @return true if every case passed on our side
     */
    public static boolean run(List<PeerCase> plan, PeerSettings settings, int udpPort, PrintStream out) {
        out.println("PEER-LOG java " + Runtime.version() + ", IP_DONTFRAGMENT option "
                + (hasDontFragmentOption() ? "available" : "NOT available"));
        SoftRnicConfig config = SoftRnicConfig.builder("soft0").addresses(settings.hostAddresses())
                // rxe picks its UDP source port per QP (ECMP entropy): only its address is checked
                .udpPort(udpPort).checkSourcePort(false).build();
        int passed = 0;
        try (SoftVerbsProvider provider = new SoftVerbsProvider(config);
                IbvContext context = provider.openDevice("soft0")) {
            CaseRunner runner = new CaseRunner(context, settings, out);
            for (PeerCase c : plan) {
                out.println("PEER-LOG case " + c.label() + " starts");
                boolean ok = runner.run(c);
                out.println("PEER-CASE " + c.label() + " " + (ok ? "pass" : "fail"));
                if (ok) {
                    passed++;
                }
            }
        } catch (Exception e) {
            out.println("PEER-FAIL soft RNIC: " + e);
        }
        boolean all = passed == plan.size();
        out.println("PEER-RESULT " + (all ? "pass" : "fail") + " (" + passed + " of " + plan.size() + " cases)");
        return all;
    }

    /** @return whether this JVM has jdk.net.ExtendedSocketOptions.IP_DONTFRAGMENT (Java 19+) */
    static boolean hasDontFragmentOption() {
        try {
            Class.forName("jdk.net.ExtendedSocketOptions").getField("IP_DONTFRAGMENT");
            return true;
        } catch (ReflectiveOperationException e) {
            return false;
        }
    }

    private static List<InetAddress> literals(String csv) {
        List<InetAddress> out = new ArrayList<>();
        for (String s : csv.split(",")) {
            out.add(SoftRnicConfig.literal(s));
        }
        return out;
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                return null;
            }
            m.put(args[i].substring(2), args[i + 1]);
        }
        return m;
    }
}
