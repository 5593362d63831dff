package dev.virtuoso.commands;

import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.demo.DemoOptions;
import dev.virtuoso.commands.demo.DemoRunner;

/**
 * {@code virtuoso:demo} (the launcher's {@code virtuoso demo}): see {@link DemoRunner}. When the
 * component stops while a demo runs (the shell ended, the framework or the bundle stops), the demo
 * is interrupted, says so in one line and reports no result, and the component waits (bounded) for
 * it to close its connections. An interrupt of the command's thread (Ctrl-C, the shell stopping)
 * ends it the same way.
 */
@Component(service = DemoCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=demo"})
public class DemoCommand {

    private static final long STOP_WAIT_MILLIS = 10_000;

    @Reference
    private VirtuosoServices services;

    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    /**
     * Runs the demo.
     *
     * @param args the demo's options ({@code --help} lists them)
     * @throws Exception if the demo fails (a transfer, a verification, a missing service)
     */
    public void demo(String... args) throws Exception {
        ParsedArgs a = DemoOptions.SPEC.parse(args);
        if (a.help()) {
            System.out.print(DemoOptions.SPEC.usage());
            return;
        }
        Thread me = Thread.currentThread();
        running.add(me);
        try {
            new DemoRunner(services, DemoOptions.from(a), System.out).run();
        } catch (InterruptedException e) {
            // the shell interrupts its command thread on Ctrl-C and when it stops
            stopped();
        } catch (IOException | RuntimeException e) {
            if (!stopping) {
                throw e;
            }
            stopped();
        } finally {
            running.remove(me);
            synchronized (running) {
                running.notifyAll();
            }
        }
    }

    private static void stopped() {
        System.out.println();
        System.out.println("demo stopped (interrupted, or the shell or the OSGi framework is shutting down): the"
                + " transfer did not finish and no results were written");
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        stopping = true;
        for (Thread t : running) {
            t.interrupt();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STOP_WAIT_MILLIS);
        synchronized (running) {
            while (!running.isEmpty() && System.nanoTime() < deadline) {
                running.wait(50);
            }
        }
    }
}
