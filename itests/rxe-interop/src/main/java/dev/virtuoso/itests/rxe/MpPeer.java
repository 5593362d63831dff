package dev.virtuoso.itests.rxe;

import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.policy.cc.chunkprobe.ChunkProbePolicy;
import dev.virtuoso.policy.lb.adaptive.AdaptivePolicy;
import dev.virtuoso.policy.lb.roundrobin.RoundRobinPolicy;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One side of the multipath interop: the core (QP manager, decomposer, reassembler, policies) wired
 * without OSGi as the bundles wire it, on verbs-ibv over rxe in the guest or on the soft RNIC (UDP
 * wire, port 4791) in the host. Both sides run the same plan ({@link MpPlanCase}) in order; each
 * case is one connection running {@link MpCase}.
 *
 * <pre>
 * MpPeer --side guest|host --provider ibv|soft --device NAME --local-ips A,B,.. --remote-ips X,Y,..
 *        --plan FILE [--cases FIRST-LAST] [--size BYTES] [--port 18600] [--netdev eth0] [--ack-timeout 23]
 *        [--wait-seconds 180] [--stall-dump-seconds 90]
 * </pre>
 * {@code --stall-dump-seconds}: after that long without an output line, print every thread's stack
 * ({@code MP-STALL} lines, {@link StallWatchdog}); diagnostics only, nothing is stopped.
 * {@code --wait-seconds}: how long a server waits for its client and a client retries connecting
 * (the host's first wait includes the guest's boot).
 * {@code --cases}: run only plan lines FIRST..LAST (1-based), e.g. so the guest can read rxe's
 * counters between them; a case's bootstrap port is {@code port + its line number - 1} either way.
 * Prints {@code MP-...} lines (see {@link MpCase}); exit status 0 if every case passed on this side.
 */
public final class MpPeer {
    private MpPeer() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            a.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        for (String k : List.of("side", "provider", "device", "local-ips", "remote-ips", "plan")) {
            if (!a.containsKey(k)) {
                System.err.println("MpPeer: missing --" + k + " (see the class comment)");
                System.exit(2);
            }
        }
        MpCase.Settings s = new MpCase.Settings(a.get("side").equals("guest"), a.get("provider"), a.get("device"),
                literals(a.get("local-ips")), literals(a.get("remote-ips")),
                Integer.parseInt(a.getOrDefault("size", String.valueOf(4 << 20))),
                Integer.parseInt(a.getOrDefault("port", "18600")), a.getOrDefault("netdev", "eth0"),
                Integer.parseInt(a.getOrDefault("ack-timeout", "23")),
                Integer.parseInt(a.getOrDefault("wait-seconds", "180")));
        List<MpPlanCase> plan = MpPlanCase.parse(Files.readAllLines(Path.of(a.get("plan"))));
        String[] range = a.getOrDefault("cases", "1-" + plan.size()).split("-");
        int first = Integer.parseInt(range[0]);
        int last = Integer.parseInt(range[1]);
        if (first < 1 || last > plan.size() || first > last) {
            System.err.println("MpPeer: --cases " + a.get("cases") + " outside 1-" + plan.size());
            System.exit(2);
        }
        boolean ok;
        try (StallWatchdog w = new StallWatchdog(System.out, Integer.parseInt(a.getOrDefault("stall-dump-seconds", "90")))) {
            ok = run(plan, first - 1, last, s, w.stream());
        }
        System.exit(ok ? 0 : 1);
    }

    /** @return true if every case in [from, to) passed on this side */
    static boolean run(List<MpPlanCase> plan, int from, int to, MpCase.Settings s, PrintStream out) {
        out.println("MP-LOG java " + Runtime.version() + ", provider " + s.provider() + ", side "
                + (s.guest() ? "guest" : "host"));
        int passed = 0;
        VerbsProvider provider = null;
        Connector connector = null;
        try {
            provider = provider(s);
            PolicyRegistry policies = new PolicyRegistry();
            policies.add(RoundRobinPolicy.NAME, new RoundRobinPolicy());
            policies.add(AdaptivePolicy.NAME, new AdaptivePolicy());
            policies.add(ChunkProbePolicy.NAME, new ChunkProbePolicy());
            VerbsProvider p = provider;
            connector = new Connector(n -> n == null || n.equals(p.name()) ? p : null, new DecomposerComponent(),
                    new ReassemblerComponent(), policies, new CoreSettings(p.name(), 128, 32, 4, 1000, 30_000));
            for (int i = from; i < to; i++) {
                MpPlanCase c = plan.get(i);
                boolean ok = new MpCase(connector, s, c, i, out).run();
                out.println("MP-CASE " + c.label() + " " + (ok ? "pass" : "fail"));
                if (ok) {
                    passed++;
                }
            }
        } catch (Exception e) {
            out.println("MP-FAIL " + e);
            e.printStackTrace(out);
        } finally {
            if (connector != null) {
                connector.close();
            }
            if (provider instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    out.println("MP-LOG closing the provider: " + e);
                }
            }
        }
        boolean all = passed == to - from;
        out.println("MP-RESULT " + (all ? "pass" : "fail") + " (" + passed + " of " + (to - from) + " cases)");
        return all;
    }

    /**
     * The soft RNIC with our addresses as vNICs on the RoCEv2 port, or verbs-ibv (JDK 22+ classes,
     * loaded by name so this module stays Java 17).
     */
    private static VerbsProvider provider(MpCase.Settings s) throws ReflectiveOperationException {
        if (s.provider().equals("soft")) {
            return new SoftVerbsProvider(SoftRnicConfig.builder(s.device()).addresses(s.localIps()).udpPort(4791)
                    // rxe picks its UDP source port per QP (ECMP entropy): only its address is checked
                    .checkSourcePort(false).build());
        }
        if (s.provider().equals("ibv")) {
            return (VerbsProvider) Class.forName("dev.virtuoso.verbs.ibv.IbvVerbsProvider")
                    .getConstructor(String.class).newInstance("libibverbs.so.1");
        }
        throw new IllegalArgumentException("provider soft or ibv: " + s.provider());
    }

    private static List<InetAddress> literals(String csv) {
        List<InetAddress> out = new ArrayList<>();
        for (String x : csv.split(",")) {
            out.add(SoftRnicConfig.literal(x));
        }
        return out;
    }
}
