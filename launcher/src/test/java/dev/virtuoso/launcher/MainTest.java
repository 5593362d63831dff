package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/** The launcher's own argument handling: exit codes and messages, never a stack trace. */
class MainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpIsSuccess() {
        assertEquals(Main.OK, run("--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("usage: virtuoso"));
    }

    @Test
    void badArgumentsGiveUsageAndTwo() {
        assertEquals(Main.USAGE, run("nonsense"));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("unknown subcommand 'nonsense'"), e);
        assertTrue(e.contains("usage: virtuoso"), e);
        assertFalse(e.contains("\tat "), "no stack trace");
    }

    @Test
    void unknownFeatureIsAUsageError() {
        assertEquals(Main.USAGE, run("--feature", "no-such-feature", "paths"));
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("unknown feature 'no-such-feature'"), e);
        assertFalse(e.contains("\tat "), "no stack trace");
    }
}
