package dev.virtuoso.launcher;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The launcher run by the tests: in this JVM through {@link Main#run}, or as a process of its own. */
final class LauncherRuns {
    private LauncherRuns() {
    }

    /** What a run in this JVM printed and returned. */
    record InProcess(int code, String out, String err) {
    }

    /**
     * Runs {@link Main#run} here with standard output captured (the commands print to
     * {@code System.out}).
     */
    static InProcess run(String... argv) {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            code = Main.run(argv, System.out, new PrintStream(err, true, StandardCharsets.UTF_8));
        } finally {
            System.setOut(saved);
        }
        return new InProcess(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** What a finished command printed (standard output and error together) and returned. */
    record Exited(int code, String output) {
    }

    /**
     * Runs {@code cmd} (a script of the repository, or a tool) to its end, at most {@code seconds}.
     *
     * @param env variables added to this JVM's environment
     */
    static Exited exec(List<String> cmd, Map<String, String> env, long seconds) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + cmd);
        }
        return new Exited(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** A launcher process whose output (standard output and error together) a thread collects. */
    static final class Child {
        final Process process;
        private final ByteArrayOutputStream output = new ByteArrayOutputStream();
        private final Thread drain;

        /** Starts {@code command}; {@code name} names the thread that collects its output. */
        Child(List<String> command, String name) throws IOException {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
            drain = new Thread(() -> {
                try {
                    process.getInputStream().transferTo(output);
                } catch (IOException e) {
                    // the process ended
                }
            }, name);
            drain.start();
        }

        /** @return its output so far; after the process ended, all of it once the thread has collected it */
        String output() throws InterruptedException {
            if (!process.isAlive()) {
                drain.join(10_000);
            }
            return output.toString(StandardCharsets.UTF_8); // ByteArrayOutputStream synchronizes
        }
    }
}
