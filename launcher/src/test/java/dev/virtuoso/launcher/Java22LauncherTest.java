package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The launcher on Java 22 or newer installs and starts the libibverbs provider for the subcommands
 * that may use a real RNIC, and {@code paths} lists it (its devices, or why it registered none);
 * on an older JVM {@code bench -P ibv} says what the provider needs. The JDK 22+ is the one
 * {@code -Dvirtuoso.test.java22=<java>} names, else the newest under {@code /usr/lib/jvm} (the
 * build's verbs-ibv module needs one too); without one the first test is skipped, saying so.
 */
class Java22LauncherTest {

    @Test
    void onJava22TheIbvProviderStartsAndPathsListsIt() throws Exception {
        Optional<Path> java = java22();
        assumeTrue(java.isPresent(), "no JDK 22+ found (-Dvirtuoso.test.java22=<java> or /usr/lib/jvm/*)");
        List<String> command = new ArrayList<>(List.of(java.get().toString(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "-Dvirtuoso.bundles=" + Main.bundlesDir(),
                Main.class.getName(), "-v", "paths"));
        LauncherRuns.Child p = new LauncherRuns.Child(command, "java22-launcher-output");
        assertTrue(p.process.waitFor(120, TimeUnit.SECONDS), "the launcher ends");
        String o = p.output();
        assertEquals(Main.OK, p.process.exitValue(), o);
        assertTrue(Pattern.compile("(?m)^\\[launcher\\] dev\\.virtuoso\\.verbs\\.ibv \\S+ state 32$").matcher(o).find(),
                "the ibv bundle is ACTIVE: " + o);
        // registered with its devices, or a line saying why not (no device on a machine without RDMA)
        assertTrue(Pattern.compile("(?m)^ibv {7}\\S").matcher(o).find(), "paths lists ibv: " + o);
        assertTrue(!o.contains("left out") && !o.contains("needs Java 22"), o);
    }

    @Test
    void benchOnTheIbvProviderSaysWhatItNeedsWhereItIsNotRegistered() {
        assumeTrue(Runtime.version().feature() < 22, "this JVM runs the ibv provider: the other test covers it");
        LauncherRuns.InProcess r = LauncherRuns.run("bench", "-P", "ibv", "--wait", "1", "127.0.0.1");
        String e = r.err() + r.out();
        assertEquals(Main.FAILED, r.code(), e);
        assertTrue(e.contains("no verbs provider 'ibv' is registered (it needs Java 22 or newer (this JVM is Java "
                + Runtime.version().feature() + "), libibverbs and an RDMA device)"), e);
    }

    /** @return a java of release 22 or newer: the property's, else the newest under /usr/lib/jvm */
    private static Optional<Path> java22() throws IOException {
        String named = System.getProperty("virtuoso.test.java22");
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named));
        }
        Path jvms = Path.of("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return Optional.empty();
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            return homes.filter(h -> Files.isExecutable(h.resolve("bin/java")) && feature(h) >= 22)
                    .max(Comparator.comparingInt(Java22LauncherTest::feature)).map(h -> h.resolve("bin/java"));
        }
    }

    /** @return the JDK's feature release from its {@code release} file, or 0 */
    private static int feature(Path home) {
        try {
            Matcher m = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)").matcher(Files.readString(home.resolve("release")));
            return m.find() ? Integer.parseInt(m.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
