package dev.virtuoso.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;

/** The DS component registers nothing, and says why, when the library or a device is missing. */
class IbvProviderComponentTest {
    private final List<String> calls = new ArrayList<>();

    private BundleContext recordingContext() {
        return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {BundleContext.class}, (proxy, method, args) -> {
                    calls.add(method.getName());
                    return null;
                });
    }

    private static IbvProviderComponent.Config config(String libraryName) {
        return new IbvProviderComponent.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return IbvProviderComponent.Config.class;
            }

            @Override
            public String libraryName() {
                return libraryName;
            }
        };
    }

    @Test
    void missingLibraryRegistersNothingAndNamesTheLibrary() {
        IbvProviderComponent c = new IbvProviderComponent();
        c.activate(recordingContext(), config(IbvAvailabilityTest.MISSING_LIBRARY));
        assertEquals(List.of(), calls, "no service may be registered");
        assertTrue(c.status().startsWith("libibverbs verbs provider (provider=ibv) not registered: libibverbs not"
                + " loadable as '" + IbvAvailabilityTest.MISSING_LIBRARY + "'"), c.status());
        c.deactivate();
    }

    @Test
    void noDeviceRegistersNothingAndSaysSo() {
        assumeTrue(IbvAvailabilityTest.libibverbsInstalled(), "skipped: libibverbs.so.1 not installed");
        assumeFalse(IbvAvailabilityTest.rdmaDevicePresent(), "skipped: this host has an RDMA device");
        IbvProviderComponent c = new IbvProviderComponent();
        c.activate(recordingContext(), config("libibverbs.so.1"));
        assertEquals(List.of(), calls, "no service may be registered");
        assertTrue(c.status().contains("not registered: libibverbs loaded ('libibverbs.so.1') but it lists no RDMA"
                + " device"), c.status());
        c.deactivate();
    }

    @Test
    void aDeviceRegistersProviderIbv() {
        assumeTrue(IbvAvailabilityTest.libibverbsInstalled(), "skipped: libibverbs.so.1 not installed");
        assumeTrue(IbvAvailabilityTest.rdmaDevicePresent(), "skipped: no RDMA device on this host");
        IbvProviderComponent c = new IbvProviderComponent();
        c.activate(recordingContext(), config("libibverbs.so.1"));
        assertEquals(List.of("registerService"), calls);
        assertTrue(c.status().startsWith("libibverbs verbs provider (provider=ibv) registered for "), c.status());
    }
}
