package dev.virtuoso.itests.osgi;

import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

/**
 * A service obtained through a {@link ServiceTracker}, held until {@link #close()}; closing
 * releases the service and stops tracking. Use with try-with-resources.
 *
 * @param <S> the service type
 */
public final class TrackedService<S> implements AutoCloseable {

    private final ServiceTracker<S, S> tracker;
    private final S service;
    private final ServiceReference<S> reference;

    TrackedService(ServiceTracker<S, S> tracker, S service, ServiceReference<S> reference) {
        this.tracker = tracker;
        this.service = service;
        this.reference = reference;
    }

    /** @return the service object, valid until {@link #close()} */
    public S service() {
        return service;
    }

    /** @return the registration the service came from */
    public ServiceReference<S> reference() {
        return reference;
    }

    /** @return symbolic name of the bundle that registered the service */
    public String publisher() {
        return reference.getBundle().getSymbolicName();
    }

    @Override
    public void close() {
        tracker.close();
    }
}
