package dev.virtuoso.qpmanager.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.osgi.framework.Constants;

import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.util.TypedProperties;

/**
 * The verbs providers bound to the connector, by their {@value VerbsProvider#PROVIDER_PROPERTY}
 * name, and the one a connection gets when neither its options nor the configuration name one: the
 * highest {@code service.ranking}, the one bound first among equals. The core never prefers a
 * provider by its name; a provider says how it ranks.
 */
final class BoundProviders {
    private record Bound(String name, VerbsProvider provider, int ranking, long serviceId) {
    }

    private final List<Bound> bound = new ArrayList<>();

    synchronized void add(VerbsProvider p, Map<String, Object> props) {
        bound.add(new Bound(nameOf(p, props), p, rankingOf(props.get(Constants.SERVICE_RANKING)),
                serviceIdOf(props.get(Constants.SERVICE_ID))));
    }

    /** Forgets the registration of {@code p} with these properties (its name in them). */
    synchronized void remove(VerbsProvider p, Map<String, Object> props) {
        String name = nameOf(p, props);
        bound.removeIf(b -> b.provider() == p && b.name().equals(name));
    }

    private static String nameOf(VerbsProvider p, Map<String, Object> props) {
        return TypedProperties.of(props).getString(VerbsProvider.PROVIDER_PROPERTY, p.name());
    }

    /**
     * @param name a provider's name, or {@code null} for the preferred one
     * @return the provider, or {@code null} if none is bound (by that name)
     */
    synchronized VerbsProvider get(String name) {
        Bound best = null;
        for (Bound b : bound) {
            if (name != null) {
                if (b.name().equals(name)) {
                    return b.provider();
                }
            } else if (best == null || b.ranking() > best.ranking()
                    || b.ranking() == best.ranking() && b.serviceId() < best.serviceId()) {
                best = b;
            }
        }
        return best == null ? null : best.provider();
    }

    private static int rankingOf(Object v) {
        return v instanceof Integer i ? i : 0; // OSGi: a ranking that is not an Integer counts as 0
    }

    private static long serviceIdOf(Object v) {
        return v instanceof Long l ? l : Long.MAX_VALUE;
    }
}
