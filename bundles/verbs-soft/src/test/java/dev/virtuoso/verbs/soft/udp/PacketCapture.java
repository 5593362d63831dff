package dev.virtuoso.verbs.soft.udp;

import static org.junit.jupiter.api.Assumptions.abort;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A dumpcap capture on an interface, and tshark decoding of the file; aborts the calling test
 * (JUnit assumption) when the tools or the capture permission are missing.
 */
final class PacketCapture implements AutoCloseable {
    private final Process process;
    private final Path file;
    private final StringBuilder log = new StringBuilder();

    private PacketCapture(Process process, Path file) {
        this.process = process;
        this.file = file;
    }

    /** @return the executable's path, or null if not on PATH */
    static Path onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Starts capturing and returns once the capture provably records packets: dumpcap's "Capturing
     * on" line alone comes before its filter sees traffic, so {@code marker} (which must send one
     * datagram matching {@code filter}, to be excluded when decoding) is repeated until dumpcap's
     * running "Packets: N" count moves.
     *
     * @param iface interface, e.g. {@code lo}
     * @param filter capture filter
     * @param file pcapng output
     * @param marker sends one marker datagram that {@code filter} captures
     */
    static PacketCapture start(String iface, String filter, Path file, Runnable marker)
            throws IOException, InterruptedException {
        Path dumpcap = onPath("dumpcap");
        if (dumpcap == null || onPath("tshark") == null) {
            abort("tshark/dumpcap not installed (apt-get install tshark): wire check skipped");
        }
        Process p = new ProcessBuilder(dumpcap.toString(), "-i", iface, "-f", filter, "-w", file.toString())
                .redirectErrorStream(true).start();
        PacketCapture capture = new PacketCapture(p, file);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        // reads dumpcap's output until it exits, so dumpcap never blocks on a full pipe
        CompletableFuture.runAsync(() -> capture.follow(out));
        if (!capture.await(() -> capture.capturing, 20_000, null)) {
            capture.close();
            abort("cannot capture on " + iface + " (needs root or CAP_NET_RAW): " + capture.log());
        }
        if (!capture.await(() -> capture.packets > 0, 10_000, marker)) {
            capture.close();
            abort("dumpcap on " + iface + " never recorded the marker datagrams: " + capture.log());
        }
        return capture;
    }

    private volatile boolean capturing;
    private volatile long packets;

    private void follow(BufferedReader out) {
        try {
            String line;
            // dumpcap ends its running count with '\r', which readLine treats as a line end
            while ((line = out.readLine()) != null) {
                synchronized (log) {
                    log.append(line).append('\n');
                }
                String s = line.trim();
                if (s.startsWith("Capturing on")) {
                    capturing = true;
                } else if (s.startsWith("Packets:")) {
                    try {
                        packets = Long.parseLong(s.substring("Packets:".length()).trim());
                    } catch (NumberFormatException e) {
                        // not the running count
                    }
                }
            }
        } catch (IOException e) {
            // dumpcap ended
        }
    }

    private boolean await(java.util.function.BooleanSupplier condition, long millis, Runnable each)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                return false;
            }
            if (each != null) {
                each.run();
            }
            Thread.sleep(50);
        }
        return true;
    }

    String log() {
        synchronized (log) {
            return log.toString();
        }
    }

    /** Stops the capture (dumpcap finishes the file on SIGTERM). */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /**
     * Decodes a capture file with {@code tshark -T fields}.
     *
     * @param file the capture
     * @param options extra options (e.g. {@code -d udp.port==N,infiniband})
     * @param fields field names
     * @return one row per frame, one column per field (empty string if absent)
     */
    static List<String[]> decode(Path file, List<String> options, List<String> fields)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(onPath("tshark").toString(), "-n", "-r", file.toString()));
        cmd.addAll(options);
        cmd.addAll(List.of("-T", "fields", "-E", "separator=|", "-E", "occurrence=f"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Path out = file.resolveSibling(file.getFileName() + ".txt");
        Path err = file.resolveSibling(file.getFileName() + ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("tshark did not finish within 120 s");
        }
        if (p.exitValue() != 0) {
            throw new IOException("tshark failed (" + p.exitValue() + "): " + Files.readString(err));
        }
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(out)) {
            if (!line.isEmpty()) {
                rows.add(line.split("\\|", -1));
            }
        }
        return rows;
    }
}
