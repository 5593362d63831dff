package dev.virtuoso.verbs.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.verbs.disni.emulation.EmulatedDisni;
import dev.virtuoso.verbs.disni.sysfs.RdmaSysfs;

/** The availability verdict and its one-line explanation. */
class DisniAvailabilityTest {

    private static Path roce() throws URISyntaxException {
        return Path.of(DisniAvailabilityTest.class.getResource("/sysfs-roce").toURI());
    }

    @Test
    void availableOnlyWithLibraryAndAnIpv4RoceDevice(@TempDir Path tmp) throws Exception {
        DisniAvailability.Result ok = DisniAvailability.check(new RdmaSysfs(roce()), () -> null);
        assertTrue(ok.available());
        assertNull(ok.problem());

        DisniAvailability.Result noLib = DisniAvailability.check(new RdmaSysfs(roce()), () -> "libdisni not loadable (x)");
        assertFalse(noLib.available());
        assertEquals("libdisni not loadable (x)", noLib.problem());

        DisniAvailability.Result nothing = DisniAvailability.check(new RdmaSysfs(tmp), () -> "libdisni not loadable (x)");
        assertEquals("libdisni not loadable (x); and no RDMA device under " + tmp.resolve("class/infiniband"),
                nothing.problem());

        Path gidless = tmp.resolve("gidless");
        Files.createDirectories(gidless.resolve("class/infiniband/rxe0/ports/1/gids"));
        DisniAvailability.Result noGid = DisniAvailability.check(new RdmaSysfs(gidless), () -> null);
        assertFalse(noGid.available());
        assertTrue(noGid.problem().startsWith("RDMA device(s) [rxe0] have no IPv4 RoCE v2 GID"), noGid.problem());
    }

    @Test
    void libraryProbeSeesDisnisProvider() throws Exception {
        try (EmulatedDisni e = EmulatedDisni.install(Map.of(), IbvMtu.MTU_4096)) {
            assertNull(DisniAvailability.probeLibrary(), "an RdmaProvider is installed");
        }
        // no libdisni on this machine: DiSNI's JNI-backed provider cannot initialise
        String problem = DisniAvailability.probeLibrary();
        assertTrue(problem != null && problem.startsWith("libdisni not loadable ("), problem);
    }
}
