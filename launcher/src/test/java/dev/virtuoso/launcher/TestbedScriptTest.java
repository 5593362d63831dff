package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * System test of the testbed script (root, iproute2): builds a 2-link testbed under its own
 * namespace prefix, checks the source-address routing of both ToRs, cutting and restoring a link,
 * changing a rate, and (a second test, which needs iperf3) that a vNIC's traffic takes only its own
 * link at its rate; then removes it. Skips with a message where root or network namespaces are unavailable.
 */
class TestbedScriptTest {

    private static final Path SCRIPT = Path.of("src/main/sh/testbed.sh");
    private final String prefix = "vtt" + ThreadLocalRandom.current().nextInt(1000, 10000);

    private LauncherRuns.Exited run(String... cmd) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        full.addAll(List.of(cmd));
        return exec(full);
    }

    private LauncherRuns.Exited exec(List<String> cmd) throws IOException, InterruptedException {
        return LauncherRuns.exec(cmd, Map.of("VT_PREFIX", prefix), 60);
    }

    private LauncherRuns.Exited ns(String ns, String... cmd) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", prefix + "-" + ns));
        full.addAll(List.of(cmd));
        return exec(full);
    }

    @BeforeEach
    void needsRootAndNamespaces() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "testbed test skipped: needs root");
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip")),
                "testbed test skipped: iproute2 is not installed");
        LauncherRuns.Exited probe = exec(List.of("ip", "netns", "add", prefix + "-probe"));
        assumeTrue(probe.code() == 0, "testbed test skipped: cannot create network namespaces: " + probe.output());
        exec(List.of("ip", "netns", "del", prefix + "-probe"));
    }

    @AfterEach
    void down() throws Exception {
        if ("root".equals(System.getProperty("user.name"))) {
            run("down");
        }
    }

    @Test
    void buildsRoutesByVnicCutsRestoresAndReshapes() throws Exception {
        LauncherRuns.Exited up = run("up", "2", "40mbit");
        assertEquals(0, up.code(), up.output());
        assertEquals("10.71.0.1,10.71.0.2", run("vnics", "a").output().trim());
        for (int i = 0; i < 2; i++) {
            String a = ns("tor1", "ip", "route", "get", "10.72.0.1", "from", "10.71.0." + (i + 1), "iif", "t1a").output();
            assertTrue(a.contains("dev c" + i + "a"), "ToR1 sends vNIC " + i + " over link " + i + ": " + a);
            String b = ns("tor2", "ip", "route", "get", "10.71.0.2", "from", "10.72.0." + (i + 1), "iif", "t2b").output();
            assertTrue(b.contains("dev c" + i + "b"), "ToR2 sends vNIC " + i + " over link " + i + ": " + b);
        }
        assertEquals(0, run("cut", "0").code());
        LauncherRuns.Exited cut = ns("tor1", "ip", "route", "get", "10.72.0.1", "from", "10.71.0.1", "iif", "t1a");
        assertTrue(cut.code() != 0, "a cut link is unreachable, not rerouted: " + cut.output());
        assertEquals(0, run("restore", "0").code());
        assertTrue(ns("tor1", "ip", "route", "get", "10.72.0.1", "from", "10.71.0.1", "iif", "t1a").output()
                .contains("dev c0a"), "restored");
        assertEquals(0, run("rate", "1", "20mbit").code());
        String status = run("status").output();
        assertTrue(status.contains("rate 20Mbit"), status);
        assertEquals(1, run("rate", "7", "20mbit").code(), "a link index out of range fails");
    }

    /** 2 s of TCP from vNIC 2 after link 1 is reshaped: about its 20 Mbit/s, and only link 1 carries it. */
    @Test
    void aVnicsTrafficTakesOnlyItsLinkAtItsRate() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/iperf3")), "throughput test skipped: needs iperf3");
        LauncherRuns.Exited up = run("up", "2", "40mbit");
        assertEquals(0, up.code(), up.output());
        assertEquals(0, run("rate", "1", "20mbit").code());
        ProcessBuilder server = new ProcessBuilder("ip", "netns", "exec", prefix + "-b", "iperf3", "-s", "-1", "-B",
                "10.72.0.2").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process s = server.start();
        try {
            Thread.sleep(300);
            LauncherRuns.Exited c = ns("a", "iperf3", "-c", "10.72.0.2", "-B", "10.71.0.2", "-t", "2", "-f", "m");
            Matcher m = Pattern.compile("([0-9.]+) Mbits/sec\\s+receiver").matcher(c.output());
            assertTrue(m.find(), c.output());
            double mbps = Double.parseDouble(m.group(1));
            assertTrue(mbps > 14 && mbps < 24, "link 1 shaped to 20 Mbit/s, measured " + mbps);
            String status = run("status").output();
            Matcher sent = Pattern.compile("link (\\d)\\s.*Sent (\\d+) bytes").matcher(status);
            long[] bytes = new long[2];
            while (sent.find()) {
                bytes[Integer.parseInt(sent.group(1))] = Long.parseLong(sent.group(2));
            }
            assertTrue(bytes[1] > 2_000_000 && bytes[0] < 100_000, "only link 1 carried the flow: " + status);
        } finally {
            s.destroy();
            s.waitFor(5, TimeUnit.SECONDS);
        }
    }
}
