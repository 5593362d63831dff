package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link VerbsProvider} over libibverbs through java.lang.foreign. Devices are those of
 * {@code ibv_get_device_list}; a device's vNICs are its RoCE v2 GIDs that carry an IPv4 address,
 * in GID-table order, each with its GID index and netdev.
 */
public final class IbvVerbsProvider implements VerbsProvider {
    /** Value of the {@code provider} service property. */
    public static final String NAME = "ibv";

    /** enum ibv_gid_type: IBV_GID_TYPE_ROCE_V2. */
    static final int GID_TYPE_ROCE_V2 = 2;
    private static final int MAX_GIDS = 1024;

    private final LibIbverbs lib;

    /**
     * @param libraryName name or path of libibverbs, normally {@code libibverbs.so.1}
     * @throws IllegalArgumentException if the library does not load
     * @throws UnsatisfiedLinkError if it lacks a symbol this binding needs
     */
    public IbvVerbsProvider(String libraryName) {
        this.lib = new LibIbverbs(libraryName);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RdmaDevice> devices() throws VerbsException {
        List<RdmaDevice> out = new ArrayList<>();
        forEachDevice("ibv_get_device_list", dev -> {
            String name = deviceName(dev);
            MemorySegment ctx = open(dev, name);
            try {
                out.add(new RdmaDevice(name, vnics(ctx)));
            } finally {
                int rc = (int) lib.closeDevice.invokeExact(ctx);
                assert rc == 0;
            }
            return null;
        });
        return out;
    }

    @Override
    public IbvContext openDevice(String deviceName) throws VerbsException {
        IbvContext opened = forEachDevice("ibv_open_device", dev -> {
            if (!deviceName.equals(deviceName(dev))) {
                return null;
            }
            MemorySegment ctx = open(dev, deviceName);
            try {
                return new NativeContext(lib, ctx, deviceName, vnics(ctx));
            } catch (Throwable t) {
                // the GID table could not be read: nobody else will close this context
                int rc = (int) lib.closeDevice.invokeExact(ctx);
                assert rc == 0;
                throw t;
            }
        });
        if (opened == null) {
            throw new VerbsException(VerbsException.ENODEV, "no RDMA device named " + deviceName);
        }
        return opened;
    }

    /** What is done with one {@code struct ibv_device *}: a non-null result ends the walk. */
    @FunctionalInterface
    private interface DeviceVisit<T> {
        T visit(MemorySegment dev) throws Throwable;
    }

    /** Walks the device list (freed afterwards); the first non-null visit result, else null. */
    private <T> T forEachDevice(String call, DeviceVisit<T> visit) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = LibIbverbs.errnoState(arena);
            MemorySegment num = arena.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) lib.getDeviceList.invokeExact(errno, num);
            if (list.equals(MemorySegment.NULL)) {
                throw LibIbverbs.failure("ibv_get_device_list", LibIbverbs.errno(errno));
            }
            try {
                int n = num.get(JAVA_INT, 0);
                MemorySegment devs = list.reinterpret(ADDRESS.byteSize() * n);
                for (int i = 0; i < n; i++) {
                    T result = visit.visit(devs.getAtIndex(ADDRESS, i));
                    if (result != null) {
                        return result;
                    }
                }
                return null;
            } finally {
                lib.freeDeviceList.invokeExact(list);
            }
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(call, t);
        }
    }

    private String deviceName(MemorySegment dev) throws Throwable {
        MemorySegment s = (MemorySegment) lib.getDeviceName.invokeExact(dev);
        return s.reinterpret(64).getString(0);
    }

    private MemorySegment open(MemorySegment dev, String name) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = LibIbverbs.errnoState(arena);
            MemorySegment ctx = (MemorySegment) lib.openDevice.invokeExact(errno, dev);
            if (ctx.equals(MemorySegment.NULL)) {
                throw new VerbsException(LibIbverbs.errno(errno), "ibv_open_device(" + name + ") failed");
            }
            return ctx;
        }
    }

    /** The IPv4 RoCE v2 GIDs of an open device. */
    private List<Vnic> vnics(MemorySegment ctx) throws Throwable {
        List<Vnic> out = new ArrayList<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment table = arena.allocate(Structs.GID_ENTRY, MAX_GIDS);
            long n = (long) lib.queryGidTable.invokeExact(ctx, table, (long) MAX_GIDS, 0,
                    Structs.GID_ENTRY.byteSize());
            if (n < 0) {
                throw LibIbverbs.failure("ibv_query_gid_table", (int) n);
            }
            long size = Structs.GID_ENTRY.byteSize();
            for (long i = 0; i < n; i++) {
                MemorySegment e = table.asSlice(i * size, size);
                if (e.get(JAVA_INT, Structs.offset(Structs.GID_ENTRY, "gid_type")) != GID_TYPE_ROCE_V2) {
                    continue;
                }
                byte[] gid = e.asSlice(0, 16).toArray(JAVA_BYTE);
                InetAddress ip = ipv4OfGid(gid);
                if (ip == null) {
                    continue;
                }
                int index = e.get(JAVA_INT, Structs.offset(Structs.GID_ENTRY, "gid_index"));
                int ifindex = e.get(JAVA_INT, Structs.offset(Structs.GID_ENTRY, "ndev_ifindex"));
                out.add(new Vnic(ip, index, netdevName(ifindex)));
            }
        }
        return out;
    }

    /** The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d), else null. */
    static InetAddress ipv4OfGid(byte[] gid) {
        for (int i = 0; i < 10; i++) {
            if (gid[i] != 0) {
                return null;
            }
        }
        if (gid[10] != (byte) 0xff || gid[11] != (byte) 0xff) {
            return null;
        }
        try {
            return InetAddress.getByAddress(new byte[] {gid[12], gid[13], gid[14], gid[15]});
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    private static String netdevName(int ifindex) {
        try {
            NetworkInterface nif = NetworkInterface.getByIndex(ifindex);
            return nif == null ? "" : nif.getName();
        } catch (SocketException e) {
            return "";
        }
    }
}
