package dev.virtuoso.verbs.ibv;

import dev.virtuoso.spi.verbs.RdmaDevice;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Decides whether the libibverbs binding can work here: the library must load (with the symbols
 * of rdma-core 32 or newer) and list at least one device. The verdict names what is missing.
 */
public final class IbvAvailability {

    /**
     * @param provider the provider to register, or null
     * @param devices names of the devices found (empty if none)
     * @param problem what is missing (null when available)
     */
    public record Result(IbvVerbsProvider provider, List<String> devices, String problem) {
        /** @return whether a provider can be registered */
        public boolean available() {
            return provider != null;
        }
    }

    private IbvAvailability() {
    }

    /**
     * @param libraryName name or path of libibverbs
     * @return the verdict
     */
    public static Result check(String libraryName) {
        IbvVerbsProvider provider;
        try {
            provider = new IbvVerbsProvider(libraryName);
        } catch (IllegalArgumentException | LinkageError e) {
            return new Result(null, List.of(), "libibverbs not loadable as '" + libraryName + "' (" + e.getMessage()
                    + "); install libibverbs1 and ibverbs-providers (rdma-core 32 or newer)");
        } catch (IllegalCallerException e) {
            return new Result(null, List.of(), "native access to libibverbs denied (" + e.getMessage()
                    + "); start the JVM with --enable-native-access=ALL-UNNAMED");
        }
        List<RdmaDevice> devices;
        try {
            devices = provider.devices();
        } catch (java.io.IOException e) {
            return new Result(null, List.of(), "libibverbs loaded but listing devices failed: " + e.getMessage());
        }
        if (devices.isEmpty()) {
            return new Result(null, List.of(), "libibverbs loaded ('" + libraryName
                    + "') but it lists no RDMA device (load a driver or create one, e.g. rdma link add rxe0 type rxe"
                    + " netdev <if>, and check ibverbs-providers is installed)");
        }
        return new Result(provider, devices.stream().map(RdmaDevice::name).collect(Collectors.toList()), null);
    }
}
