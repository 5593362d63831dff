package dev.virtuoso.qpmanager.internal;

import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.qpmanager.internal.engine.Connector;

/**
 * Publishes each established connection as a {@link MultipathConnection} service (so shells and
 * monitors can find every connection of the process) and withdraws it when the connection closes.
 */
final class ConnectionPublisher implements Connector.Observer, AutoCloseable {
    /** Service property holding the connection's {@link MultipathConnection#id()}. */
    static final String ID_PROPERTY = "virtuoso.connection.id";

    private final BundleContext context;
    private final Map<MultipathConnection, ServiceRegistration<MultipathConnection>> registrations =
            new ConcurrentHashMap<>();
    private final Map<MultipathConnection, Boolean> gone = new ConcurrentHashMap<>();

    ConnectionPublisher(BundleContext context) {
        this.context = context;
    }

    @Override
    public void established(MultipathConnection c) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(ID_PROPERTY, c.id());
        props.put("virtuoso.connection.peer", String.valueOf(c.remoteBootstrapAddress()));
        ServiceRegistration<MultipathConnection> r;
        try {
            r = context.registerService(MultipathConnection.class, c, props);
        } catch (IllegalStateException e) {
            return;
        }
        // the engine thread may report the end meanwhile: the maps change together, under the lock
        // (never held across a framework call, whose service listeners may call the connection)
        synchronized (this) {
            if (gone.remove(c) == null) {
                registrations.put(c, r);
                return;
            }
        }
        unregister(r);
    }

    @Override
    public void closed(MultipathConnection c) {
        ServiceRegistration<MultipathConnection> r;
        synchronized (this) {
            r = registrations.remove(c);
            if (r == null) {
                // closed before it was published: withdrawn as soon as it is
                gone.put(c, Boolean.TRUE);
                return;
            }
        }
        unregister(r);
    }

    private static void unregister(ServiceRegistration<MultipathConnection> r) {
        try {
            r.unregister();
        } catch (IllegalStateException e) {
            // already withdrawn with the bundle
        }
    }

    @Override
    public void close() {
        for (MultipathConnection c : registrations.keySet()) {
            closed(c);
        }
        synchronized (this) {
            gone.clear();
        }
    }
}
