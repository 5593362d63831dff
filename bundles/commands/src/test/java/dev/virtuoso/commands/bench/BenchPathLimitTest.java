package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;

/** The bench takes as many paths as a connection can have, and says so when asked for more. */
class BenchPathLimitTest {

    private static BenchOptions parse(String... args) {
        return BenchOptions.from(BenchOptions.SPEC.parse(args));
    }

    @Test
    void pathsUpToTheConnectionLimitAreAccepted() {
        assertEquals(32, ConnectOptions.MAX_PATHS);
        assertEquals(ConnectOptions.MAX_PATHS,
                parse("-q", String.valueOf(ConnectOptions.MAX_PATHS)).defaultLoopbackVnics().size());
    }

    @Test
    void morePathsThanAConnectionCanHaveAreRefusedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> parse("-q", "64"));
        assertTrue(e.getMessage().contains("at most " + ConnectOptions.MAX_PATHS + " paths"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> parse("-q", String.valueOf(ConnectOptions.MAX_PATHS + 1)));
    }
}
