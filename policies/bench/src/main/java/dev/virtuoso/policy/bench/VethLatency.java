package dev.virtuoso.policy.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@code veth} wire of the latency bench: the soft RNIC's UDP wire between two processes in two
 * network namespaces this class creates ({@code vlat-a}, {@code vlat-b}), joined by {@link #PATHS}
 * veth pairs (MTU 9000; path i: 198.19.i.1 in a, 198.19.i.2 in b, in the RFC 2544 benchmarking
 * range). A {@link LatencyPeer} server runs in b, a client in a; the client's CSV rows are copied to
 * the output, the two processes' logs to standard error. Needs root and iproute2; without them it prints why and measures nothing. The
 * namespaces (and with them the veth pairs) are deleted at the end, also after a failure.
 */
final class VethLatency {
    static final String NS_A = "vlat-a";
    static final String NS_B = "vlat-b";
    static final int PATHS = 4;
    private static final int CONTROL_PORT = 18600;
    private static final long RUN_MINUTES = 60;

    private VethLatency() {
    }

    static void run(PrintStream out, LatencyBench.Plan plan) throws Exception {
        String missing = unavailable();
        if (missing != null) {
            out.println("# veth: skipped, " + missing);
            return;
        }
        Process server = null;
        Process client = null;
        try {
            setUp();
            String cp = classpath();
            server = new ProcessBuilder(peer(cp, "server", plan, "2", "1")).redirectErrorStream(true).start();
            BufferedReader sout = new BufferedReader(new InputStreamReader(server.getInputStream(),
                    StandardCharsets.UTF_8));
            String line;
            while ((line = sout.readLine()) != null && !line.equals("READY")) {
                System.err.println("veth server: " + line);
            }
            if (line == null) {
                throw new IOException("the veth server ended before it listened (exit " + server.waitFor() + ")");
            }
            Thread drain = new Thread(() -> copy(sout, out, "veth server: "), "latency-bench-veth-server-output");
            drain.setDaemon(true);
            drain.start();
            client = new ProcessBuilder(peer(cp, "client", plan, "1", "2")).redirectErrorStream(true).start();
            copy(new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8)), out,
                    "veth client: ");
            if (!client.waitFor(RUN_MINUTES, TimeUnit.MINUTES) || client.exitValue() != 0) {
                out.println("# veth: the client failed (exit " + (client.isAlive() ? "none" : client.exitValue())
                        + ")");
            }
            server.waitFor(30, TimeUnit.SECONDS);
        } finally {
            stop(client);
            stop(server);
            tearDown();
        }
    }

    /** @return why the veth wire cannot run here, or {@code null} */
    static String unavailable() {
        try {
            String status = Files.readString(Path.of("/proc/self/status"));
            if (!status.lines().anyMatch(l -> l.matches("Uid:\\s+0\\s.*"))) {
                return "needs root (network namespaces and veth pairs)";
            }
        } catch (IOException e) {
            return "cannot tell whether this is root: " + e.getMessage();
        }
        try {
            if (new ProcessBuilder("ip", "-V").redirectErrorStream(true).start().waitFor() != 0) {
                return "iproute2's ip does not run";
            }
        } catch (IOException | InterruptedException e) {
            return "needs iproute2 (ip): " + e.getMessage();
        }
        return null;
    }

    /** The addresses of one side, path order: 198.19.i.{@code host}. */
    static String addresses(String host) {
        List<String> a = new ArrayList<>();
        for (int i = 1; i <= PATHS; i++) {
            a.add("198.19." + i + "." + host);
        }
        return String.join(",", a);
    }

    private static List<String> peer(String cp, String role, LatencyBench.Plan plan, String local, String remote) {
        return List.of("ip", "netns", "exec", role.equals("server") ? NS_B : NS_A,
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xms256m", "-Xmx1g",
                "-Dlatency.softYieldMicros=" + LatencyRig.softYieldMicros(),
                "-Dlatency.softInvokeOnPoll=" + LatencyRig.softInvokeOnPoll(), "-cp", cp,
                LatencyPeer.class.getName(), role, Integer.toString(plan.iterations()),
                Integer.toString(plan.threshold()), plan.spins(), addresses(local), addresses(remote),
                Integer.toString(CONTROL_PORT));
    }

    private static void setUp() throws IOException, InterruptedException {
        tearDown(); // what a killed earlier run left
        ip("netns", "add", NS_A);
        ip("netns", "add", NS_B);
        ip("-n", NS_A, "link", "set", "lo", "up");
        ip("-n", NS_B, "link", "set", "lo", "up");
        for (int i = 1; i <= PATHS; i++) {
            String a = NS_A + i;
            String b = NS_B + i;
            ip("link", "add", a, "netns", NS_A, "type", "veth", "peer", "name", b, "netns", NS_B);
            ip("-n", NS_A, "addr", "add", "198.19." + i + ".1/24", "dev", a);
            ip("-n", NS_B, "addr", "add", "198.19." + i + ".2/24", "dev", b);
            ip("-n", NS_A, "link", "set", a, "mtu", "9000", "up");
            ip("-n", NS_B, "link", "set", b, "mtu", "9000", "up");
        }
    }

    private static void tearDown() {
        for (String ns : new String[] {NS_A, NS_B}) {
            try {
                new ProcessBuilder("ip", "netns", "del", ns).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
            } catch (IOException | InterruptedException e) {
                // nothing to delete, or nothing we can do
            }
        }
    }

    private static void ip(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("ip"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + text);
        }
    }

    private static void copy(BufferedReader in, PrintStream out, String prefix) {
        try {
            String line;
            while ((line = in.readLine()) != null) {
                // the client's CSV rows to the output, everything else (logs) to standard error
                if (line.startsWith("veth,")) {
                    out.println(line);
                    out.flush();
                } else {
                    System.err.println(prefix + line);
                }
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    private static void stop(Process p) throws InterruptedException {
        if (p != null && p.isAlive()) {
            p.destroy();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    /** The class path of this class's loader (Maven's exec:java) or of the JVM (plain java -cp). */
    static String classpath() throws URISyntaxException {
        if (VethLatency.class.getClassLoader() instanceof URLClassLoader u) {
            List<String> parts = new ArrayList<>();
            for (URL url : u.getURLs()) {
                parts.add(Path.of(url.toURI()).toString());
            }
            return String.join(File.pathSeparator, parts);
        }
        return System.getProperty("java.class.path");
    }
}
