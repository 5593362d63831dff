package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import com.ibm.disni.verbs.RdmaCm;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.disni.sysfs.RdmaSysfs;
import dev.virtuoso.verbs.disni.sysfs.RoceGid;

/**
 * The verbs binding over DiSNI 2.1 ({@code provider=disni}). Devices and their vNICs come from
 * sysfs; a device is listed when it has at least one IPv4 RoCE v2 GID, because DiSNI's RDMA CM calls
 * are IPv4 only and every connection is bound to a vNIC address.
 *
 * <p>Outside OSGi, create it with the constructor once libdisni is known to load (see
 * {@link DisniAvailability}); under OSGi {@link DisniProviderComponent} does that.
 */
public final class DisniVerbsProvider implements VerbsProvider, AutoCloseable {
    /** The binding's name, the value of {@value VerbsProvider#PROVIDER_PROPERTY}. */
    public static final String NAME = "disni";

    private final DisniSettings settings;
    private final RdmaSysfs sysfs;
    private final RdmaCm cm;
    private final Set<DisniContext> open = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /**
     * @param settings sysfs root, timeouts, QP number range
     * @throws IOException if DiSNI's RDMA CM cannot be opened (libdisni missing or mismatched)
     */
    public DisniVerbsProvider(DisniSettings settings) throws IOException {
        this.settings = settings;
        this.sysfs = new RdmaSysfs(settings.sysfsRoot());
        this.cm = RdmaCm.open();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RdmaDevice> devices() throws VerbsException {
        List<RdmaDevice> out = new ArrayList<>();
        for (String dev : sysfs.deviceNames()) {
            List<RoceGid> gids = ipv4Gids(dev);
            if (!gids.isEmpty()) {
                out.add(new RdmaDevice(dev, gids.stream().map(RoceGid::toVnic).toList()));
            }
        }
        return out;
    }

    @Override
    public IbvContext openDevice(String deviceName) throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.ENODEV, "the DiSNI provider is closed");
        }
        List<RdmaDevice> devices = devices();
        RdmaDevice dev = null;
        for (RdmaDevice d : devices) {
            if (deviceName == null || d.name().equals(deviceName)) {
                dev = d;
                break;
            }
        }
        if (dev == null) {
            throw new VerbsException(VerbsException.ENODEV, (deviceName == null ? "no RDMA device"
                    : "no RDMA device " + deviceName) + " with an IPv4 RoCE v2 GID under " + sysfs.devicesDir());
        }
        DisniContext ctx = DisniContext.open(this, cm, sysfs, dev.name(), ipv4Gids(dev.name()), settings);
        open.add(ctx);
        return ctx;
    }

    private List<RoceGid> ipv4Gids(String device) {
        return sysfs.roceV2Gids(device).stream().filter(RoceGid::isIpv4).toList();
    }

    void forget(DisniContext ctx) {
        open.remove(ctx);
    }

    /** Closes every context opened through this provider (bundle stop). */
    @Override
    public void close() {
        closed = true;
        for (DisniContext ctx : List.copyOf(open)) {
            ctx.close();
        }
    }
}
