package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Supplier;

import com.ibm.disni.util.MemoryUtils;
import com.ibm.disni.verbs.RdmaProvider;
import com.ibm.disni.verbs.impl.RdmaProviderNat;

import dev.virtuoso.verbs.disni.sysfs.RdmaSysfs;
import dev.virtuoso.verbs.disni.sysfs.RoceGid;

/**
 * Decides whether the DiSNI binding can work on this host: libdisni must load (with the JNI version
 * DiSNI 2.1 expects, and with access to {@code sun.nio.ch}) and at least one RDMA device must have
 * an IPv4 RoCE v2 GID. The result names everything that is missing in one sentence.
 */
public final class DisniAvailability {

    /**
     * @param available whether the provider can be registered
     * @param problem what is missing (null when available)
     */
    public record Result(boolean available, String problem) {
    }

    private DisniAvailability() {
    }

    /**
     * @param sysfs where to look for devices
     * @param libraryProbe returns null when DiSNI's native side works, else the problem
     * @return the verdict
     */
    public static Result check(RdmaSysfs sysfs, Supplier<String> libraryProbe) {
        String library = libraryProbe.get();
        String devices = deviceProblem(sysfs);
        if (library == null && devices == null) {
            return new Result(true, null);
        }
        String problem = library == null ? devices : devices == null ? library : library + "; and " + devices;
        return new Result(false, problem);
    }

    static String deviceProblem(RdmaSysfs sysfs) {
        List<String> names = sysfs.deviceNames();
        if (names.isEmpty()) {
            return "no RDMA device under " + sysfs.devicesDir();
        }
        for (String n : names) {
            if (sysfs.roceV2Gids(n).stream().anyMatch(RoceGid::isIpv4)) {
                return null;
            }
        }
        return "RDMA device(s) " + names + " have no IPv4 RoCE v2 GID (assign an IP address to the RNIC's netdev)";
    }

    /**
     * Loads DiSNI's native side once per class loader ({@code System.loadLibrary("disni")} in its
     * NativeDispatcher) and checks it can read direct buffer addresses.
     *
     * @return null if DiSNI works, else the problem
     */
    public static String probeLibrary() {
        try {
            RdmaProvider provider = RdmaProvider.provider();
            provider.openCm();
            provider.openVerbs();
            if (provider instanceof RdmaProviderNat) {
                MemoryUtils.getAddress(ByteBuffer.allocateDirect(8));
            }
            return null;
        } catch (UnsatisfiedLinkError e) {
            String m = String.valueOf(e.getMessage());
            return "libdisni not loadable (" + m + (m.contains("java.library.path") ? ""
                    : "; java.library.path=" + System.getProperty("java.library.path")) + ")";
        } catch (IllegalAccessError e) {
            return "DiSNI cannot read direct buffer addresses (" + e.getMessage()
                    + "): start the JVM with --add-exports java.base/sun.nio.ch=ALL-UNNAMED";
        } catch (NoClassDefFoundError e) {
            if (String.valueOf(e.getMessage()).contains("sun/nio/ch")) {
                return "DiSNI cannot see sun.nio.ch: set org.osgi.framework.system.packages.extra=sun.nio.ch"
                        + " (or bootdelegation) and start the JVM with --add-exports java.base/sun.nio.ch=ALL-UNNAMED";
            }
            return "libdisni not loadable (DiSNI's native dispatcher failed to initialise in this class loader: "
                    + e.getMessage() + ")";
        } catch (IOException e) {
            return "libdisni does not match DiSNI 2.1 (" + e.getMessage() + "); install libdisni 2.1";
        } catch (LinkageError | RuntimeException e) {
            return "DiSNI failed to initialise: " + e;
        }
    }
}
