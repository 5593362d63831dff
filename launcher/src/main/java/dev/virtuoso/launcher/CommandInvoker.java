package dev.virtuoso.launcher;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Finds a Gogo command service (properties {@code osgi.command.scope} and
 * {@code osgi.command.function}) and calls its function with the subcommand's arguments, by
 * reflection, as Gogo itself does: the launcher shares no class with the bundles.
 */
final class CommandInvoker {

    private CommandInvoker() {
    }

    /** The function threw; {@link #getCause()} is what it threw. */
    static final class CommandFailed extends Exception {
        private static final long serialVersionUID = 1L;

        CommandFailed(Throwable cause) {
            super(cause.getMessage(), cause);
        }
    }

    /**
     * Waits for the command service and calls {@code function(String[] args)} on it.
     *
     * @param ctx the system bundle's context
     * @param scope command scope
     * @param function command function, also the method name
     * @param args the arguments, passed as one {@code String[]}
     * @param timeoutMillis how long to wait for the service
     * @return what the function returned (may be {@code null})
     * @throws IllegalStateException if no such service appears in time or it has no such method
     * @throws CommandFailed if the function threw
     * @throws InterruptedException if interrupted while waiting
     */
    static Object invoke(BundleContext ctx, String scope, String function, String[] args, long timeoutMillis)
            throws CommandFailed, InterruptedException {
        Filter filter;
        try {
            filter = ctx.createFilter("(&(osgi.command.scope=" + scope + ")(osgi.command.function=" + function + "))");
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException("bad command name " + scope + ":" + function, e);
        }
        ServiceTracker<Object, Object> tracker = new ServiceTracker<>(ctx, filter, null);
        tracker.open(true);
        try {
            Object service = tracker.waitForService(TimeUnit.MILLISECONDS.toMillis(timeoutMillis));
            ServiceReference<Object> ref = tracker.getServiceReference();
            if (service == null || ref == null) {
                throw new IllegalStateException("the command " + scope + ":" + function + " did not appear within "
                        + timeoutMillis / 1000 + " s (is the virtuoso-commands bundle active?)");
            }
            Method m;
            try {
                m = service.getClass().getMethod(function, String[].class);
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException(service.getClass().getName() + " has no method " + function
                        + "(String...)", e);
            }
            try {
                return m.invoke(service, (Object) args);
            } catch (InvocationTargetException e) {
                throw new CommandFailed(e.getCause());
            } catch (IllegalAccessException e) {
                throw new IllegalStateException("cannot call " + function + ": " + e.getMessage(), e);
            }
        } finally {
            tracker.close();
        }
    }
}
