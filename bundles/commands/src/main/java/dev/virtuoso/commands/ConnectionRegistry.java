package dev.virtuoso.commands;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import dev.virtuoso.api.ConnectionState;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.commands.cli.CommandError;

/**
 * The connections the shell commands can act on: every {@link MultipathConnection} registered as
 * an OSGi service (by the QP manager, where it does so) plus those this bundle made itself (the
 * shell's testbed), each once. Internal to this bundle; thread-safe.
 */
@Component(service = ConnectionRegistry.class, immediate = true)
public class ConnectionRegistry {

    /**
     * A known connection.
     *
     * @param connection the connection
     * @param role who made it and which end it is, e.g. {@code testbed client} or {@code service}
     */
    public record Known(MultipathConnection connection, String role) {
    }

    private final List<MultipathConnection> services = new CopyOnWriteArrayList<>();
    private final Map<MultipathConnection, String> local = new ConcurrentHashMap<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addConnection(MultipathConnection c) {
        services.add(c);
    }

    void removeConnection(MultipathConnection c) {
        services.remove(c);
    }

    /** @param c a connection this bundle made @param role its description */
    public void register(MultipathConnection c, String role) {
        local.put(c, role);
    }

    /** @param c a connection this bundle closed */
    public void unregister(MultipathConnection c) {
        local.remove(c);
    }

    /** @return every known connection that is not closed, ordered by id */
    public List<Known> list() {
        Map<MultipathConnection, String> all = new IdentityHashMap<>();
        for (MultipathConnection c : services) {
            all.put(c, "service");
        }
        all.putAll(local);
        List<Known> out = new ArrayList<>();
        all.forEach((c, role) -> {
            if (c.state() != ConnectionState.CLOSED) {
                out.add(new Known(c, role));
            }
        });
        out.sort(Comparator.comparing(k -> k.connection().id()));
        return out;
    }

    /**
     * Finds a connection by its id, a unique prefix of it, or its 1-based number in {@link #list()}.
     *
     * @param key what the user typed
     * @return the connection
     * @throws IllegalArgumentException if none or several match
     */
    public MultipathConnection find(String key) {
        List<Known> all = list();
        if (key.matches("\\d{1,3}")) {
            int i = Integer.parseInt(key);
            if (i >= 1 && i <= all.size()) {
                return all.get(i - 1).connection();
            }
        }
        List<MultipathConnection> hits = new ArrayList<>();
        for (Known k : all) {
            if (k.connection().id().equals(key)) {
                return k.connection();
            }
            if (k.connection().id().startsWith(key)) {
                hits.add(k.connection());
            }
        }
        if (hits.size() == 1) {
            return hits.get(0);
        }
        throw new CommandError(hits.isEmpty()
                ? "no connection '" + key + "' (see virtuoso:connections)"
                : "'" + key + "' matches " + hits.size() + " connections; type more of the id");
    }
}
