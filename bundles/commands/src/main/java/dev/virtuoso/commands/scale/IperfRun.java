package dev.virtuoso.commands.scale;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code iperf3 -P N} over loopback TCP, the kernel's reference for the scale bench: a one-test
 * server ({@code iperf3 -s -1}) and a client moving the same total bytes in N parallel streams.
 * CPU is iperf3's own {@code cpu_utilization_percent} (getrusage user + system of client and
 * server over the test; softirq work outside the processes is not in it).
 *
 * @param gbits the receiver's goodput, Gbit/s
 * @param cpuSeconds client + server CPU over the test, seconds
 * @param seconds the test's duration
 */
record IperfRun(double gbits, double cpuSeconds, double seconds) {

    /** iperf3 (3.x) refuses more parallel streams than this. */
    static final int MAX_STREAMS = 128;
    private static final long TIMEOUT_SECONDS = 300;

    /**
     * @param streams parallel streams
     * @param bytes total bytes of the test
     * @param port TCP port on 127.0.0.1
     * @return the result
     * @throws IOException if iperf3 is missing, fails or times out
     * @throws InterruptedException if interrupted
     */
    static IperfRun run(int streams, long bytes, int port) throws IOException, InterruptedException {
        Process server = new ProcessBuilder("iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", String.valueOf(port))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        try {
            Process client = null;
            String out = "";
            for (int attempt = 0; attempt < 50; attempt++) {
                Thread.sleep(100); // until the server listens
                client = new ProcessBuilder("iperf3", "-c", "127.0.0.1", "-p", String.valueOf(port), "-P",
                        String.valueOf(streams), "-n", String.valueOf(bytes), "-J").redirectErrorStream(true).start();
                out = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!client.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    client.destroyForcibly();
                    throw new IOException("iperf3 client did not finish within " + TIMEOUT_SECONDS + " s");
                }
                if (client.exitValue() == 0 || !out.contains("unable to connect")) {
                    break;
                }
            }
            if (client == null || client.exitValue() != 0) {
                throw new IOException("iperf3 failed: " + firstError(out));
            }
            return parse(out);
        } finally {
            server.destroy();
            if (!server.waitFor(5, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    /**
     * @param json iperf3's {@code -J} output
     * @return goodput (sum_received), CPU (host_total + remote_total of cpu_utilization_percent x
     *     seconds) and seconds
     * @throws IOException if a field is missing
     */
    static IperfRun parse(String json) throws IOException {
        int end = json.indexOf("\"end\"");
        int recv = json.indexOf("\"sum_received\"", Math.max(end, 0));
        if (end < 0 || recv < 0) {
            throw new IOException("iperf3 JSON without end.sum_received: " + firstError(json));
        }
        String tail = json.substring(recv);
        double seconds = number(tail, "seconds");
        double bps = number(tail, "bits_per_second");
        int cpuAt = json.indexOf("\"cpu_utilization_percent\"");
        String cpu = cpuAt < 0 ? "" : json.substring(cpuAt);
        double host = cpuAt < 0 ? 0 : number(cpu, "host_total");
        double remote = cpuAt < 0 ? 0 : number(cpu, "remote_total");
        return new IperfRun(bps / 1e9, (host + remote) / 100 * seconds, seconds);
    }

    private static double number(String s, String field) throws IOException {
        Matcher m = Pattern.compile("\"" + field + "\"\\s*:\\s*([-0-9.eE+]+)").matcher(s);
        if (!m.find()) {
            throw new IOException("iperf3 JSON has no " + field);
        }
        return Double.parseDouble(m.group(1));
    }

    private static String firstError(String out) {
        Matcher m = Pattern.compile("\"error\"\\s*:\\s*\"([^\"]*)\"").matcher(out);
        if (m.find()) {
            return m.group(1);
        }
        List<String> lines = out.lines().limit(3).toList();
        return lines.isEmpty() ? "(no output)" : String.join(" / ", lines);
    }
}
