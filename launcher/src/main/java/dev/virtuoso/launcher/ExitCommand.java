package dev.virtuoso.launcher;

import java.util.Hashtable;
import java.util.concurrent.atomic.AtomicInteger;

import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.ServiceRegistration;

/**
 * The launcher shell's {@code exit [STATUS]} (Gogo scope {@code launcher}): stops the embedded
 * framework, from a thread of its own so the command returns first and the shell ends without an
 * interrupt, and makes STATUS (default 0) the launcher's exit status. Without it Felix Gogo resolves
 * {@code exit} to {@code System.exit(int)}, which prints an exception text.
 */
public final class ExitCommand {
    private final BundleContext system;
    private final AtomicInteger status = new AtomicInteger(Main.OK);

    ExitCommand(BundleContext system) {
        this.system = system;
    }

    /** Registers the command on the system bundle. */
    ServiceRegistration<ExitCommand> register() {
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", "launcher");
        props.put("osgi.command.function", "exit");
        return system.registerService(ExitCommand.class, this, props);
    }

    /** Gogo {@code exit}: leaves the shell with status 0. */
    public void exit() {
        exit(Main.OK);
    }

    /**
     * Gogo {@code exit STATUS}.
     *
     * @param code the launcher's exit status
     */
    public void exit(int code) {
        status.set(code);
        Thread stopper = new Thread(() -> {
            try {
                system.getBundle().stop();
            } catch (BundleException | IllegalStateException e) {
                System.err.println("virtuoso: stopping the OSGi framework failed: " + e.getMessage());
            }
        }, "virtuoso-launcher-exit");
        stopper.start();
    }

    /** @return the status given to {@code exit}, 0 if none */
    int status() {
        return status.get();
    }
}
