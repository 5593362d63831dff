package dev.virtuoso.commands;

import java.io.PrintStream;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.PathStats;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.commands.cli.CommandLineSpec;
import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.cli.Units;

/**
 * Shell commands on live connections: {@code connections} (paths with live statistics),
 * {@code policy} (show or set a connection's policies) and {@code path} (take a path down or up).
 */
@Component(service = ConnectionCommands.class, immediate = true, property = {"osgi.command.scope=virtuoso",
    "osgi.command.function=connections", "osgi.command.function=policy", "osgi.command.function=path"})
public class ConnectionCommands {

    private static final CommandLineSpec CONNECTIONS = new CommandLineSpec("connections", "", 0, 0)
            .option('w', "watch", "SECS", null, "refresh every second for SECS seconds, with throughput per path");
    private static final CommandLineSpec POLICY = new CommandLineSpec("policy", "CONN [LB]", 1, 2)
            .option((char) 0, "lb", "NAME", null, "load-balancing policy to switch to")
            .option((char) 0, "cc", "NAME", null, "congestion-avoidance policy to switch to");
    private static final CommandLineSpec PATH = new CommandLineSpec("path", "down|up|list CONN [SLOT | LOCAL REMOTE]",
            2, 4);

    @Reference
    private ConnectionRegistry registry;

    @Reference
    private VirtuosoServices services;

    /** Paths taken down by {@code path down}, by connection id and slot, so {@code path up} can restore them. */
    private final Map<String, Map<Integer, PathStats>> downed = new ConcurrentHashMap<>();

    /**
     * Lists connections and their paths.
     *
     * @param args {@code [-w SECS]}
     * @throws InterruptedException if interrupted while watching
     */
    public void connections(String... args) throws InterruptedException {
        ParsedArgs a = CONNECTIONS.parse(args);
        PrintStream out = System.out;
        if (a.help()) {
            out.print(CONNECTIONS.usage());
            return;
        }
        if (!a.has("watch")) {
            print(out, Map.of(), 0);
            return;
        }
        int secs = a.intValue("watch", 1, 3600);
        Map<String, Long> last = new HashMap<>();
        long t = System.nanoTime();
        for (int i = 0; i <= secs; i++) {
            if (i > 0) {
                TimeUnit.SECONDS.sleep(1);
            }
            long now = System.nanoTime();
            if (System.console() != null) {
                out.print("\033[H\033[2J");
            }
            Map<String, Long> next = print(out, last, (now - t) / 1e9);
            last = next;
            t = now;
        }
    }

    private Map<String, Long> print(PrintStream out, Map<String, Long> lastBytes, double dt) {
        List<ConnectionRegistry.Known> all = registry.list();
        Map<String, Long> bytes = new HashMap<>();
        if (all.isEmpty()) {
            out.println("no connections (start some with virtuoso:testbed start, or run virtuoso:demo)");
            return bytes;
        }
        int n = 0;
        for (ConnectionRegistry.Known k : all) {
            MultipathConnection c = k.connection();
            out.printf(Locale.ROOT, "%d. %s  %s  %s  peer %s  lb=%s cc=%s%n", ++n, c.id(), k.role(), c.state(),
                    c.remoteBootstrapAddress(), c.loadBalancer(), c.congestionAvoidance());
            out.printf(Locale.ROOT, "   %-4s %-33s %-10s %10s %12s %12s %10s %9s %8s %6s%n", "slot", "local -> remote",
                    "state", "bytes", dt > 0 ? "throughput" : "est. rate", "probed cap.", "in flight", "latency",
                    "chunks", "fail");
            for (PathStats p : c.pathStats()) {
                String key = c.id() + "/" + p.pathId();
                bytes.put(key, p.bytesCompleted());
                double rate = p.estimatedRate() * 8;
                if (dt > 0 && lastBytes.containsKey(key)) {
                    rate = (p.bytesCompleted() - lastBytes.get(key)) * 8 / dt;
                }
                out.printf(Locale.ROOT, "   %-4d %-33s %-10s %10s %12s %12s %10s %7.2fms %8d %6d%n", p.pathId(),
                        p.localAddress().getHostAddress() + " -> " + p.remoteAddress().getHostAddress(), p.state(),
                        Units.bytes(p.bytesCompleted()), Units.rate(rate), Units.rate(p.probedCapacity() * 8),
                        Units.bytes(p.inFlightBytes()), p.smoothedLatencyNanos() / 1e6, p.chunksCompleted(),
                        p.chunksFailed());
            }
        }
        return bytes;
    }

    /**
     * Shows or sets a connection's policies: {@code policy CONN}, {@code policy CONN lb-adaptive},
     * {@code policy CONN --lb NAME --cc NAME}.
     *
     * @param args as above
     * @throws VirtuosoException if the connection refuses (unknown policy, closed)
     */
    public void policy(String... args) throws VirtuosoException {
        ParsedArgs a = POLICY.parse(args);
        PrintStream out = System.out;
        if (a.help()) {
            out.print(POLICY.usage());
            out.println("registered load balancers: " + services.loadBalancerNames());
            out.println("registered congestion avoidance: " + services.congestionAvoidanceNames());
            return;
        }
        MultipathConnection c = registry.find(a.positionals().get(0));
        String lb = a.positionals().size() > 1 ? a.positionals().get(1) : a.value("lb");
        if (lb != null && a.has("lb") && a.positionals().size() > 1) {
            throw new CommandError("give the load balancer once, either as operand or with --lb");
        }
        if (lb != null) {
            c.setLoadBalancer(lb);
        }
        if (a.value("cc") != null) {
            c.setCongestionAvoidance(a.value("cc"));
        }
        out.println(c.id() + ": lb=" + c.loadBalancer() + " cc=" + c.congestionAvoidance());
    }

    /**
     * Takes a path down ({@code path down CONN SLOT}: removed from the connection, remembered) or
     * up ({@code path up CONN SLOT} re-adds a remembered one, {@code path up CONN LOCAL REMOTE} adds
     * a new one), or lists the slots ({@code path list CONN}).
     *
     * @param args as above
     * @throws Exception if the connection refuses
     */
    public void path(String... args) throws Exception {
        ParsedArgs a = PATH.parse(args);
        PrintStream out = System.out;
        if (a.help()) {
            out.print(PATH.usage());
            return;
        }
        List<String> ops = a.positionals();
        MultipathConnection c = registry.find(ops.get(1));
        Map<Integer, PathStats> mine = downed.computeIfAbsent(c.id(), id -> new ConcurrentHashMap<>());
        switch (ops.get(0)) {
            case "list" -> {
                for (PathStats p : c.pathStats()) {
                    out.println(p.pathId() + " " + p.localAddress().getHostAddress() + " -> "
                            + p.remoteAddress().getHostAddress() + " " + p.state());
                }
                mine.forEach((slot, p) -> out.println(slot + " " + p.localAddress().getHostAddress() + " -> "
                        + p.remoteAddress().getHostAddress() + " DOWN (path up " + c.id() + " " + slot + ")"));
            }
            case "down" -> {
                int slot = slot(ops);
                PathStats p = c.pathStats().stream().filter(s -> s.pathId() == slot).findFirst()
                        .orElseThrow(() -> new CommandError("connection " + c.id() + " has no path " + slot));
                c.removePath(slot);
                mine.put(slot, p);
                out.println("path " + slot + " of " + c.id() + " is down (" + p.localAddress().getHostAddress() + " -> "
                        + p.remoteAddress().getHostAddress() + ")");
            }
            case "up" -> {
                InetAddress local;
                InetAddress remote;
                if (ops.size() == 4) {
                    local = literal(ops.get(2));
                    remote = literal(ops.get(3));
                } else {
                    PathStats p = mine.remove(slot(ops));
                    if (p == null) {
                        throw new CommandError("path " + ops.get(2) + " of " + c.id()
                                + " was not taken down here; give LOCAL REMOTE addresses");
                    }
                    local = p.localAddress();
                    remote = p.remoteAddress();
                }
                int slot = c.addPath(local, remote);
                out.println("path " + slot + " of " + c.id() + " is up (" + local.getHostAddress() + " -> "
                        + remote.getHostAddress() + ")");
            }
            default -> throw new CommandError("path: expected down, up or list, got '" + ops.get(0) + "'");
        }
    }

    private static int slot(List<String> ops) {
        if (ops.size() != 3) {
            throw new CommandError("expected: path " + ops.get(0) + " CONN SLOT");
        }
        try {
            return Integer.parseInt(ops.get(2));
        } catch (NumberFormatException e) {
            throw new CommandError("SLOT must be a path number: " + ops.get(2));
        }
    }

    private static InetAddress literal(String s) throws java.net.UnknownHostException {
        if (!s.matches("[0-9a-fA-F:.]+")) {
            throw new CommandError("not an IP address literal: " + s);
        }
        return InetAddress.getByName(s);
    }
}
