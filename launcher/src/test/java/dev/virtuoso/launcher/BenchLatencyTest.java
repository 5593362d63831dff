package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code virtuoso bench --lat} end to end, as users run it: the server in a process of its own,
 * the client through {@link Main} here, on the soft RNIC over loopback (two paths, UDP ports chosen
 * by the system). Every answer's message number and length is checked by the client itself; here
 * the table's row, the JSON file and the server's count of answered messages.
 */
class BenchLatencyTest {

    @Test
    void theClientMeasuresAPingPongTheServerAnswers(@TempDir Path dir) throws Exception {
        String client = pingPong(dir, List.of(), "send");
        assertTrue(client.contains(" Engine (configured)  : agents\n"), client);
        assertTrue(client.contains(" Rx depth             : 1\n"), client);
    }

    /** MP_WRITE and a notice each way: the server writes the client's bytes back and tells it. */
    @Test
    void theWriteTestWritesBackAndTells(@TempDir Path dir) throws Exception {
        String client = pingPong(dir, List.of(), "write");
        assertTrue(client.contains(" Engine (configured)  : agents\n"), client);
    }

    /** Receives posted ahead on both sides (the HELLO tells the server), for both tests. */
    @Test
    void withReceivesPostedAheadOnBothSides(@TempDir Path dir) throws Exception {
        for (String op : List.of("send", "write")) {
            String client = pingPong(dir, List.of(), op, "--rx-depth", "8");
            assertTrue(client.contains(" Rx depth             : 8\n"), client);
            assertTrue(Files.readString(dir.resolve("lat.json")).contains("\"rx_depth\": 8,"), op);
        }
    }

    /** The launcher's --config reaches the components before they activate, on both sides. */
    @Test
    void withTheEngineRunByThePollingThreadsThroughTheLaunchersConfig(@TempDir Path dir) throws Exception {
        String client = pingPong(dir, List.of("--config", "dev.virtuoso.qpmanager:engineInvokeOnPoll=true",
                "--config=dev.virtuoso.verbs.soft:invokeOnPoll=true,yieldMicros=50"), "send");
        assertTrue(client.contains(" Engine (configured)  : run by the polling threads (engineInvokeOnPoll); soft RNIC"
                + " run by its CQ pollers (invokeOnPoll)\n"), client);
    }

    /** @return the client's output, after checking it and the server's */
    private static String pingPong(Path dir, List<String> launcherOptions, String op, String... clientOptions)
            throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(java.toString(), "-cp", System.getProperty("java.class.path"),
                "-Dvirtuoso.bundles=" + Main.bundlesDir(), Main.class.getName()));
        command.addAll(launcherOptions);
        command.addAll(List.of("bench", "-q", "2", "-p", String.valueOf(port), "--udp-port", "0", "--wait", "60"));
        LauncherRuns.Child child = new LauncherRuns.Child(command, "bench-server-output");
        Process server = child.process;
        try {
            Path json = dir.resolve("lat.json");
            String client = runClient(port, json, launcherOptions, op, clientOptions);
            String title = op.equals("write") ? "RDMA_Write" : "Send";
            assertTrue(client.contains(title + " Latency Test"), client);
            for (int size : List.of(8)) {
                Matcher m = Pattern.compile("(?m)^ " + size + " +300 +([0-9.]+) +([0-9.]+) +([0-9.]+) ").matcher(client);
                assertTrue(m.find(), "a row for " + size + " B, 300 iterations: " + client);
                double min = Double.parseDouble(m.group(1));
                double typical = Double.parseDouble(m.group(3));
                assertTrue(min > 0 && min <= typical, "t_min " + min + " <= t_typical " + typical);
            }
            String j = Files.readString(json);
            assertTrue(j.contains("\"test\": \"" + op + "_lat\"") && j.contains("\"paths\": 2,")
                    && j.contains("{\"bytes\": 8, \"iterations\": 300, \"t_min\": "), j);
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "the server ends after the client's DONE");
            String s = child.output();
            assertEquals(0, server.exitValue(), s);
            assertTrue(s.contains("served the " + title + " latency test: 300 message(s) answered"), s);
            String engine = client.lines().filter(l -> l.startsWith(" Engine")).findFirst().orElse("no engine line");
            assertTrue(s.contains(engine + "\n"), "the server runs the same engine: " + s);
            String depth = client.lines().filter(l -> l.startsWith(" Rx depth")).findFirst().orElse("no depth line");
            assertTrue(s.contains(depth + "\n"), "the server keeps the client's receive depth: " + s);
            return client;
        } finally {
            server.destroyForcibly();
        }
    }

    /** Retries while the server's listener is not up yet; returns the client's standard output. */
    private static String runClient(int port, Path json, List<String> launcherOptions, String op,
            String... clientOptions) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<String> args = new ArrayList<>(launcherOptions);
        args.addAll(List.of("bench", "--lat", "--op", op, "-q", "2", "-s", "8", "-n", "300", "-p", String.valueOf(port),
                "--udp-port", "0", "--json-file", json.toString()));
        args.addAll(List.of(clientOptions));
        args.add("127.0.0.1");
        while (true) {
            LauncherRuns.InProcess r = LauncherRuns.run(args.toArray(String[]::new));
            if (r.code() == Main.OK) {
                return r.out();
            }
            if (!r.err().contains("Connection refused") || System.nanoTime() > deadline) {
                throw new AssertionError("client exit " + r.code() + ": " + r.err() + r.out());
            }
            Thread.sleep(500);
        }
    }
}
