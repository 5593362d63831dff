package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.logging.LogManager;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the command line shows of java.util.logging: Virtuoso's warnings always (an operator must
 * see a peer's protocol violation or a capped buffer), other libraries' only when SEVERE, INFO of
 * both with {@code --verbose}.
 */
class LauncherLoggingTest {

    private final PrintStream originalErr = System.err;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void captureStandardError() {
        assertNull(System.getProperty("java.util.logging.config.file"), "this test needs the launcher's own configuration");
        // the ConsoleHandler takes System.err when the configuration creates it
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() throws Exception {
        System.setErr(originalErr);
        LogManager.getLogManager().readConfiguration();
    }

    private String logged() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void virtuosoWarningsReachTheTerminalOtherLibrariesOnlyWhenSevere() {
        Main.configureLogging(false);
        System.getLogger("dev.virtuoso.qpmanager.internal.engine.ConnectionEngine").log(Level.WARNING, "peer-violation-warning");
        System.getLogger("dev.virtuoso.verbs.soft.udp.UdpWire").log(Level.INFO, "virtuoso-info");
        System.getLogger("org.jline.reader.impl.LineReaderImpl").log(Level.WARNING, "library-warning");
        System.getLogger("org.jline.reader.impl.LineReaderImpl").log(Level.ERROR, "library-error");
        String e = logged();
        assertTrue(e.contains("peer-violation-warning"), e);
        assertTrue(e.contains("library-error"), e);
        assertFalse(e.contains("virtuoso-info"), e);
        assertFalse(e.contains("library-warning"), e);
    }

    @Test
    void verboseShowsInfoOfBoth() {
        Main.configureLogging(true);
        System.getLogger("dev.virtuoso.verbs.soft.udp.UdpWire").log(Level.INFO, "virtuoso-info");
        System.getLogger("org.jline.reader.impl.LineReaderImpl").log(Level.INFO, "library-info");
        System.getLogger("dev.virtuoso.qpmanager.internal.engine.PathLifecycle").log(Level.DEBUG, "path-event");
        String e = logged();
        assertTrue(e.contains("virtuoso-info"), e);
        assertTrue(e.contains("library-info"), e);
        assertFalse(e.contains("path-event"), e);
    }
}
