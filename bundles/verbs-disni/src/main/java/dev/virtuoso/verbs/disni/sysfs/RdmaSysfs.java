package dev.virtuoso.verbs.disni.sysfs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Reads RDMA devices and their RoCE v2 GID tables from sysfs ({@code <root>/class/infiniband}).
 *
 * <p>Per device port the kernel publishes {@code ports/<p>/gids/<i>} (the GID as 8 groups of 4 hex
 * digits), {@code ports/<p>/gid_attrs/types/<i>} ({@code "RoCE v2"} or {@code "IB/RoCE v1"}) and
 * {@code ports/<p>/gid_attrs/ndevs/<i>} (the netdev). Every IP address on the RNIC's netdev gets a
 * RoCE v2 entry, which is how the vNICs (IP aliases) of Virtuoso are found. Unused entries read as
 * all zeros or fail with EINVAL; link-local {@code fe80::/10} GIDs are not IP aliases and are
 * skipped. The root is configurable so tests can point it at fake trees.
 *
 * <p>Never throws for a missing or unreadable file: that entry (or device) is skipped.
 */
public final class RdmaSysfs {
    /** The real sysfs mount point. */
    public static final Path DEFAULT_ROOT = Path.of("/sys");

    private static final String ROCE_V2 = "RoCE v2";

    private final Path root;

    /** @param root directory standing for {@code /sys} */
    public RdmaSysfs(Path root) {
        this.root = root;
    }

    /** @return the sysfs root this instance reads */
    public Path root() {
        return root;
    }

    /** @return the directory listing RDMA devices, {@code <root>/class/infiniband} */
    public Path devicesDir() {
        return root.resolve("class").resolve("infiniband");
    }

    /** @return RDMA device names in name order; empty if there are none or the directory is missing */
    public List<String> deviceNames() {
        return childNames(devicesDir()).stream().filter(n -> Files.isDirectory(devicesDir().resolve(n)))
                .sorted().toList();
    }

    /**
     * @param device device name
     * @return the device's port numbers in ascending order, empty if unreadable
     */
    public List<Integer> ports(String device) {
        List<Integer> ports = new ArrayList<>();
        for (String name : childNames(devicesDir().resolve(device).resolve("ports"))) {
            parseIndex(name).ifPresent(ports::add);
        }
        ports.sort(Comparator.naturalOrder());
        return ports;
    }

    /**
     * The RoCE v2 GIDs of every Ethernet port of a device that stand for an IP address, in (port,
     * index) order. Entries that are empty, link-local, of another type, or unreadable are skipped.
     *
     * @param device device name
     * @return the entries, empty if none
     */
    public List<RoceGid> roceV2Gids(String device) {
        List<RoceGid> out = new ArrayList<>();
        for (int port : ports(device)) {
            Path portDir = devicesDir().resolve(device).resolve("ports").resolve(Integer.toString(port));
            Optional<String> linkLayer = readTrimmed(portDir.resolve("link_layer"));
            if (linkLayer.isPresent() && !linkLayer.get().equalsIgnoreCase("Ethernet")) {
                continue; // InfiniBand port: GIDs are not IP addresses
            }
            List<Integer> indices = new ArrayList<>();
            for (String name : childNames(portDir.resolve("gids"))) {
                parseIndex(name).ifPresent(indices::add);
            }
            indices.sort(Comparator.naturalOrder());
            for (int index : indices) {
                gidEntry(portDir, port, index).ifPresent(out::add);
            }
        }
        return out;
    }

    /**
     * Reads one numeric counter file below a device port, e.g. {@code counters/port_xmit_packets}.
     *
     * @param device device name
     * @param port port number
     * @param relative path below {@code ports/<port>}
     * @return the value, empty if missing or not a number
     */
    public OptionalLong portCounter(String device, int port, String relative) {
        Path file = devicesDir().resolve(device).resolve("ports").resolve(Integer.toString(port))
                .resolve(relative);
        Optional<String> text = readTrimmed(file);
        if (text.isEmpty()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(text.get()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    private Optional<RoceGid> gidEntry(Path portDir, int port, int index) {
        String idx = Integer.toString(index);
        Optional<byte[]> gid = readTrimmed(portDir.resolve("gids").resolve(idx)).flatMap(RdmaSysfs::parseGid);
        if (gid.isEmpty() || isZero(gid.get()) || isLinkLocal(gid.get())) {
            return Optional.empty();
        }
        Optional<String> type = readTrimmed(portDir.resolve("gid_attrs").resolve("types").resolve(idx));
        if (type.isEmpty() || !type.get().equalsIgnoreCase(ROCE_V2)) {
            return Optional.empty();
        }
        String netdev = readTrimmed(portDir.resolve("gid_attrs").resolve("ndevs").resolve(idx)).orElse("");
        try {
            // getByAddress turns ::ffff:a.b.c.d into an Inet4Address
            return Optional.of(new RoceGid(port, index, InetAddress.getByAddress(gid.get()), netdev));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    /**
     * Parses a GID as sysfs prints it: eight colon-separated groups of up to four hex digits.
     *
     * @param text e.g. {@code 0000:0000:0000:0000:0000:ffff:0a00:0001}
     * @return the 16 bytes, empty if malformed
     */
    static Optional<byte[]> parseGid(String text) {
        String[] groups = text.split(":", -1);
        if (groups.length != 8) {
            return Optional.empty();
        }
        byte[] bytes = new byte[16];
        for (int i = 0; i < 8; i++) {
            String g = groups[i];
            if (g.isEmpty() || g.length() > 4) {
                return Optional.empty();
            }
            int v;
            try {
                v = Integer.parseInt(g, 16);
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
            bytes[2 * i] = (byte) (v >>> 8);
            bytes[2 * i + 1] = (byte) v;
        }
        return Optional.of(bytes);
    }

    private static boolean isZero(byte[] gid) {
        for (byte b : gid) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean isLinkLocal(byte[] gid) {
        return (gid[0] & 0xFF) == 0xFE && (gid[1] & 0xC0) == 0x80;
    }

    private static Optional<Integer> parseIndex(String name) {
        try {
            int v = Integer.parseInt(name);
            return v >= 0 ? Optional.of(v) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static List<String> childNames(Path dir) {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).toList();
        } catch (IOException | SecurityException e) {
            return List.of();
        }
    }

    private static Optional<String> readTrimmed(Path file) {
        try {
            // sysfs attributes are tiny; unused GID attributes fail with EINVAL on read
            return Optional.of(Files.readString(file, StandardCharsets.US_ASCII).trim());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }
}
