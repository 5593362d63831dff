package dev.virtuoso.qpmanager.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;

/** With no provider named, the core takes the bound provider ranked highest, never one by its name. */
class BoundProvidersTest {

    private static VerbsProvider provider(String name) {
        return new VerbsProvider() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public List<RdmaDevice> devices() {
                return List.of();
            }

            @Override
            public IbvContext openDevice(String deviceName) throws VerbsException {
                throw new VerbsException(VerbsException.ENODEV, deviceName);
            }
        };
    }

    private static Map<String, Object> props(String name, long id, Object ranking) {
        return ranking == null ? Map.of(VerbsProvider.PROVIDER_PROPERTY, name, Constants.SERVICE_ID, id)
                : Map.of(VerbsProvider.PROVIDER_PROPERTY, name, Constants.SERVICE_ID, id,
                        Constants.SERVICE_RANKING, ranking);
    }

    @Test
    void namedLookupsFindTheirProviderAndUnnamedOnesTheHighestRanked() {
        BoundProviders b = new BoundProviders();
        assertNull(b.get(null), "nothing bound");
        VerbsProvider soft = provider("soft");
        VerbsProvider rnic = provider("vendor");
        VerbsProvider third = provider("third");
        b.add(soft, props("soft", 10, null));
        assertSame(soft, b.get(null), "the only one");
        b.add(rnic, props("vendor", 20, 5));
        assertSame(rnic, b.get(null), "ranking 5 before 0, though bound later");
        b.add(third, props("third", 30, 5));
        assertSame(rnic, b.get(null), "among equal rankings the one bound first");
        assertSame(soft, b.get("soft"));
        assertSame(third, b.get("third"));
        assertNull(b.get("other"));
        b.remove(rnic, props("vendor", 20, 5));
        assertSame(third, b.get(null));
        assertNull(b.get("vendor"));
    }

    @Test
    void aRankingThatIsNotAnIntegerCountsAsZero() {
        BoundProviders b = new BoundProviders();
        VerbsProvider first = provider("a");
        VerbsProvider second = provider("b");
        b.add(first, props("a", 1, null));
        b.add(second, props("b", 2, "7"));
        assertSame(first, b.get(null));
    }

    @Test
    void theNameIsThePropertyElseTheProvidersOwn() {
        BoundProviders b = new BoundProviders();
        VerbsProvider p = provider("own");
        b.add(p, Map.of(Constants.SERVICE_ID, 3L));
        assertSame(p, b.get("own"));
    }
}
