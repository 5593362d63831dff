package dev.virtuoso.verbs.disni.sysfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RdmaSysfsTest {

    static Path fakeRoot(String name) {
        try {
            return Path.of(RdmaSysfsTest.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private final RdmaSysfs sysfs = new RdmaSysfs(fakeRoot("sysfs-roce"));

    @Test
    void listsDevicesInNameOrder() {
        assertEquals(List.of("mlx4_0", "mlx5_0", "mlx5_2", "rxe0"), sysfs.deviceNames());
    }

    @Test
    void keepsOnlyRoceV2IpGidsWithTheirIndexAndNetdev() throws Exception {
        List<RoceGid> gids = sysfs.roceV2Gids("mlx5_0");
        assertEquals(List.of(
                new RoceGid(1, 3, InetAddress.getByName("10.0.0.1"), "ens1f0"),
                new RoceGid(1, 5, InetAddress.getByName("10.0.1.1"), "ens1f0"),
                new RoceGid(1, 7, InetAddress.getByName("10.0.2.1"), "ens1f0"),
                new RoceGid(1, 8, InetAddress.getByName("2001:db8::1"), "ens1f0"),
                new RoceGid(1, 11, InetAddress.getByName("10.0.4.1"), "")), gids);
    }

    @Test
    void ipv4MappedGidsDecodeToIpv4AndIpv6StaysIpv6() {
        List<RoceGid> gids = sysfs.roceV2Gids("mlx5_0");
        assertTrue(gids.get(0).isIpv4());
        assertFalse(gids.get(3).isIpv4());
        assertEquals(4, gids.stream().filter(RoceGid::isIpv4).count());
    }

    @Test
    void skipsInfinibandPortsAndLinkLocalOnlyDevices() {
        assertEquals(List.of(), sysfs.roceV2Gids("mlx4_0"));
        assertEquals(List.of(), sysfs.roceV2Gids("rxe0"));
    }

    @Test
    void readsEveryPortAndKeepsPortOfEachEntry() throws Exception {
        List<RoceGid> gids = sysfs.roceV2Gids("mlx5_2");
        assertEquals(List.of(
                new RoceGid(1, 1, InetAddress.getByName("192.168.0.1"), "p1"),
                new RoceGid(2, 1, InetAddress.getByName("192.168.1.1"), "p2"),
                new RoceGid(2, 2, InetAddress.getByName("192.168.1.2"), "p2")), gids);
        assertEquals(List.of(1, 2), sysfs.ports("mlx5_2"));
    }

    @Test
    void unknownDeviceAndMissingRootAreEmptyNotErrors(@TempDir Path tmp) {
        assertEquals(List.of(), sysfs.roceV2Gids("nosuch0"));
        RdmaSysfs missing = new RdmaSysfs(tmp.resolve("does-not-exist"));
        assertEquals(List.of(), missing.deviceNames());
    }

    @Test
    void emptyInfinibandClassHasNoDevices(@TempDir Path tmp) throws Exception {
        Files.createDirectories(tmp.resolve("class/infiniband"));
        assertEquals(List.of(), new RdmaSysfs(tmp).deviceNames());
    }

    @Test
    void unreadableGidEntriesAreSkipped(@TempDir Path tmp) throws Exception {
        Path port = tmp.resolve("class/infiniband/dev0/ports/1");
        Files.createDirectories(port.resolve("gids"));
        Files.createDirectories(port.resolve("gid_attrs/types"));
        // a GID "file" that cannot be read as text
        Files.createDirectories(port.resolve("gids/0"));
        Files.writeString(port.resolve("gid_attrs/types/0"), "RoCE v2\n");
        // a readable one next to it
        Files.writeString(port.resolve("gids/1"), "0000:0000:0000:0000:0000:ffff:0a01:0203\n");
        Files.writeString(port.resolve("gid_attrs/types/1"), "RoCE v2\n");
        Files.createDirectories(port.resolve("gid_attrs/ndevs/1")); // unreadable netdev
        List<RoceGid> gids = new RdmaSysfs(tmp).roceV2Gids("dev0");
        assertEquals(List.of(new RoceGid(1, 1, InetAddress.getByName("10.1.2.3"), "")), gids);
    }

    @Test
    void parsesGidGroupsStrictly() {
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 10, 0, 0, 1},
                RdmaSysfs.parseGid("0000:0000:0000:0000:0000:ffff:0a00:0001").orElseThrow());
        assertTrue(RdmaSysfs.parseGid("0000:0000").isEmpty());
        assertTrue(RdmaSysfs.parseGid("0000:0000:0000:0000:0000:ffff:0a00:00001").isEmpty());
        assertTrue(RdmaSysfs.parseGid("0000:0000:0000:0000:0000:ffff:0a00:").isEmpty());
        assertTrue(RdmaSysfs.parseGid("0000:0000:0000:0000:0000:ffff:0a00:xyz1").isEmpty());
    }

    @Test
    void readsPortCounters() {
        assertEquals(1000L, sysfs.portCounter("mlx5_0", 1, "counters/port_xmit_packets").getAsLong());
        assertTrue(sysfs.portCounter("mlx5_0", 1, "counters/nosuch").isEmpty());
    }
}
