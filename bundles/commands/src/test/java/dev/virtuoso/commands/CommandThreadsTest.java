package dev.virtuoso.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Stopping a command component interrupts its running commands and waits for them; failures otherwise surface. */
class CommandThreadsTest {
    private final PrintStream originalOut = System.out;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    @BeforeEach
    void captureOut() {
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restoreOut() {
        System.setOut(originalOut);
    }

    @Test
    void stopInterruptsARunningCommandAndWaitsForItToEnd() throws Exception {
        CommandThreads threads = new CommandThreads();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch bodyEnded = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread command = new Thread(() -> {
            try {
                threads.run("bench", "no results were reported", () -> {
                    started.countDown();
                    try {
                        Thread.sleep(60_000);
                    } finally {
                        bodyEnded.countDown();
                    }
                });
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "test-command");
        command.start();
        assertTrue(started.await(10, TimeUnit.SECONDS));
        long t0 = System.nanoTime();
        threads.stop();
        assertEquals(0, bodyEnded.getCount(), "the command ended before stop() returned");
        command.join(10_000);
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(9), "not at stop()'s 10 s limit");
        assertNull(failure.get(), "a stopped command reports no failure");
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("bench stopped (interrupted, or the shell or the OSGi"
                + " framework is shutting down): no results were reported"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aFailureOfARunningCommandSurfacesUnlessTheComponentIsStopping() throws Exception {
        CommandThreads threads = new CommandThreads();
        IOException e = new IOException("path failed");
        assertSame(e, assertThrows(IOException.class, () -> threads.run("scale", "x", () -> {
            throw e;
        })));
        assertEquals("", out.toString(StandardCharsets.UTF_8));
        threads.stop();
        threads.run("scale", "no results were reported", () -> {
            throw new IOException("connection closed by the stop");
        });
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("scale stopped"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aCommandStartedAfterTheStopRunsNothing() throws Exception {
        CommandThreads threads = new CommandThreads();
        threads.stop();
        boolean[] ran = new boolean[1];
        threads.run("demo", "no results were written", () -> ran[0] = true);
        assertTrue(!ran[0], "the body did not run");
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("demo stopped"), out.toString(StandardCharsets.UTF_8));
    }
}
