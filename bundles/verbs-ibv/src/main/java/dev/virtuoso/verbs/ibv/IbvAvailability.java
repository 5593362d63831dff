package dev.virtuoso.verbs.ibv;

import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
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

    /** ibv_get_device_list's errno when the kernel has no RDMA subsystem. */
    static final int ENOSYS = 38;

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
        String noDevice = "libibverbs loaded ('" + libraryName + "') but it lists no RDMA device";
        List<RdmaDevice> devices;
        try {
            devices = provider.devices();
        } catch (VerbsException e) {
            if (e.errno() == ENOSYS) {
                return new Result(null, List.of(), noDevice + " (ibv_get_device_list: ENOSYS, the kernel has no"
                        + " RDMA support loaded; load an RNIC driver or rdma_rxe)");
            }
            return new Result(null, List.of(), "libibverbs loaded ('" + libraryName + "') but listing devices failed: "
                    + e.getMessage());
        }
        if (devices.isEmpty()) {
            return new Result(null, List.of(), noDevice + " (load an RNIC driver or create a soft device, e.g."
                    + " rdma link add rxe0 type rxe netdev <if>; check that ibverbs-providers is installed)");
        }
        return new Result(provider, devices.stream().map(RdmaDevice::name).collect(Collectors.toList()), null);
    }
}
