package dev.virtuoso.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The verdicts: library missing, library without devices, and (on a host with a device) available. */
class IbvAvailabilityTest {
    static final String MISSING_LIBRARY = "libvirtuoso-no-such-ibverbs.so.1";

    static boolean libibverbsInstalled() {
        return Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Path.of("/usr/lib/aarch64-linux-gnu/libibverbs.so.1"))
                || Files.exists(Path.of("/usr/lib64/libibverbs.so.1"));
    }

    static boolean rdmaDevicePresent() {
        String[] names = new File("/sys/class/infiniband").list();
        return names != null && names.length > 0;
    }

    @Test
    void aMissingLibraryIsNamedWithWhatToInstall() {
        IbvAvailability.Result r = IbvAvailability.check(MISSING_LIBRARY);
        assertFalse(r.available());
        assertNull(r.provider());
        assertEquals(List.of(), r.devices());
        assertTrue(r.problem().startsWith("libibverbs not loadable as '" + MISSING_LIBRARY + "'"), r.problem());
        assertTrue(r.problem().contains("install libibverbs1 and ibverbs-providers"), r.problem());
    }

    @Test
    void theLibraryWithoutADeviceSaysSo() {
        assumeTrue(libibverbsInstalled(), "skipped: libibverbs.so.1 not installed (apt-get install libibverbs1)");
        assumeFalse(rdmaDevicePresent(), "skipped: this host has an RDMA device");
        IbvAvailability.Result r = IbvAvailability.check("libibverbs.so.1");
        assertFalse(r.available());
        assertTrue(r.problem().startsWith("libibverbs loaded ('libibverbs.so.1') but it lists no RDMA device"),
                r.problem());
    }

    @Test
    void aHostWithADeviceIsAvailable() {
        assumeTrue(libibverbsInstalled(), "skipped: libibverbs.so.1 not installed (apt-get install libibverbs1)");
        assumeTrue(rdmaDevicePresent(), "skipped: no RDMA device on this host (/sys/class/infiniband is empty)");
        IbvAvailability.Result r = IbvAvailability.check("libibverbs.so.1");
        assertTrue(r.available(), r.problem());
        assertFalse(r.devices().isEmpty());
        assertEquals(IbvVerbsProvider.NAME, r.provider().name());
    }
}
