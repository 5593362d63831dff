package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;
import java.lang.reflect.Field;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaProvider;
import com.ibm.disni.verbs.RdmaVerbs;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * TESTS ONLY: a pure-Java stand-in for libdisni. DiSNI sends every verb through the singleton in
 * {@code RdmaProvider.provider} (a private static field, filled with the JNI-backed
 * {@code RdmaProviderNat} on first use); this class puts an {@link RdmaProvider} of its own there by
 * reflection, whose {@link RdmaVerbs} and {@link RdmaCm} serve DiSNI's objects (IbvContext, IbvPd,
 * stateful verb calls, CM ids and events) from SPI devices, in practice soft RNICs on the
 * in-process fabric. The DiSNI binding under test then runs unchanged on top of DiSNI's real Java
 * classes.
 *
 * <p>It reproduces what the binding depends on in libdisni/librdmacm: CM ids bound to device
 * addresses give the device's context; {@code rdma_create_qp} leaves the QP in INIT; connect/accept
 * drive both QPs to RTS with the REQ/REP's QPNs and PSNs and report ESTABLISHED; disconnect and
 * destroy move the own QP to ERR and report DISCONNECTED; no listener means REJECTED. And the
 * quirks of libdisni 2.1: a CQ needs a channel, stateful calls freeze opcode, SGE count and
 * immediate data when prepared, receive calls cannot be changed at all, error completions leave
 * {@code qp_num} and the other fields stale, immediate data is copied in host byte order.
 */
public final class EmulatedDisni implements AutoCloseable {
    private final Map<InetAddress, EmuDevice> byAddress = new LinkedHashMap<>();
    private final List<EmuDevice> devices = new ArrayList<>();
    private final CmFabric cmFabric;
    private final EmuVerbs verbs = new EmuVerbs();
    private final EmuCm cm;
    private final RdmaProvider previous;

    private EmulatedDisni(Map<String, IbvContext> contexts, IbvMtu mtu) throws IOException {
        cmFabric = new CmFabric(this, mtu);
        cm = new EmuCm(cmFabric);
        previous = swap(new RdmaProvider() {
            @Override
            public RdmaCm openCm() {
                return cm;
            }

            @Override
            public RdmaVerbs openVerbs() {
                return verbs;
            }

            @Override
            public int getVersion() {
                return 32;
            }
        });
        for (Map.Entry<String, IbvContext> e : contexts.entrySet()) {
            EmuDevice d = new EmuDevice(e.getKey(), e.getValue(), new EmuContext(e.getValue()));
            devices.add(d);
            for (Vnic v : e.getValue().vnics()) {
                byAddress.put(v.address(), d);
            }
        }
    }

    /**
     * Installs the emulation as DiSNI's provider.
     *
     * @param contexts SPI devices by name (opened and closed by the caller)
     * @param mtu the path MTU the emulated CM gives connections (real RDMA CM: from the netdev MTU)
     * @return the installed emulation; close it to restore DiSNI's previous provider
     */
    public static EmulatedDisni install(Map<String, IbvContext> contexts, IbvMtu mtu) throws IOException {
        return new EmulatedDisni(contexts, mtu);
    }

    private static RdmaProvider swap(RdmaProvider next) throws IOException {
        try {
            Field f = RdmaProvider.class.getDeclaredField("provider");
            f.setAccessible(true);
            synchronized (RdmaProvider.class) {
                RdmaProvider old = (RdmaProvider) f.get(null);
                f.set(null, next);
                return old;
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IOException("cannot replace DiSNI's RdmaProvider singleton", e);
        }
    }

    EmuDevice deviceOf(InetAddress address) {
        return byAddress.get(address);
    }

    List<EmuDevice> devices() {
        return devices;
    }

    /** @return CM handshakes and rejections seen, for assertions */
    public CmFabric cmFabric() {
        return cmFabric;
    }

    /**
     * Writes a sysfs tree describing the devices as RoCE NICs: per vNIC a RoCE v2 GID
     * {@code ::ffff:a.b.c.d} at the vNIC's GID index (plus a RoCE v1 twin and a link-local entry
     * after them, which discovery must skip).
     *
     * @param root the directory standing for /sys
     */
    public void writeSysfs(Path root) throws IOException {
        for (EmuDevice d : devices) {
            Path port = root.resolve("class/infiniband").resolve(d.name()).resolve("ports/1");
            Files.createDirectories(port.resolve("gids"));
            Files.createDirectories(port.resolve("gid_attrs/types"));
            Files.createDirectories(port.resolve("gid_attrs/ndevs"));
            write(port.resolve("link_layer"), "Ethernet");
            int next = 0;
            for (Vnic v : d.spi().vnics()) {
                if (!(v.address() instanceof Inet4Address)) {
                    continue;
                }
                byte[] a = v.address().getAddress();
                String gid = String.format("0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x", a[0], a[1], a[2], a[3]);
                gidEntry(port, v.gidIndex(), gid, "RoCE v2", d.name() + "-eth");
                next = Math.max(next, v.gidIndex() + 1);
            }
            gidEntry(port, next, "fe80:0000:0000:0000:0000:00ff:fe00:0001", "RoCE v2", d.name() + "-eth");
            gidEntry(port, next + 1, "0000:0000:0000:0000:0000:ffff:0a63:0001", "IB/RoCE v1", d.name() + "-eth");
        }
    }

    private static void gidEntry(Path port, int index, String gid, String type, String ndev) throws IOException {
        String i = Integer.toString(index);
        write(port.resolve("gids").resolve(i), gid);
        write(port.resolve("gid_attrs/types").resolve(i), type);
        write(port.resolve("gid_attrs/ndevs").resolve(i), ndev);
    }

    private static void write(Path f, String text) throws IOException {
        Files.writeString(f, text + "\n", StandardCharsets.US_ASCII);
    }

    /** Restores DiSNI's previous provider; the SPI contexts stay with the caller. */
    @Override
    public void close() throws IOException {
        cmFabric.shutdown();
        swap(previous);
    }

    /** One emulated RDMA device: an SPI context and its DiSNI-side context object. */
    record EmuDevice(String name, IbvContext spi, EmuContext context) {
        int gidIndexOf(InetAddress a) {
            for (Vnic v : spi.vnics()) {
                if (v.address().equals(a)) {
                    return v.gidIndex();
                }
            }
            return -1;
        }
    }
}
