package dev.virtuoso.verbs.soft;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.soft.rnic.SoftRnic;

/**
 * The soft RNIC verbs binding ({@code provider=soft}): a pure-Java RC transport speaking RoCEv2
 * over UDP or over the in-process fabric. Construct it with one {@link SoftRnicConfig} per device
 * (tests, tools) or let {@link SoftVerbsComponent} do it from ConfigAdmin.
 *
 * <p>Thread-safe. {@link #close()} closes every context opened through it, which stops the engine
 * threads and closes the wires.
 */
public final class SoftVerbsProvider implements VerbsProvider, AutoCloseable {
    /** The binding name. */
    public static final String NAME = "soft";

    private final Map<String, SoftRnic> devices = new LinkedHashMap<>();
    private volatile boolean closed;

    /** @param configs one per device; names must be unique */
    public SoftVerbsProvider(List<SoftRnicConfig> configs) {
        try {
            for (SoftRnicConfig c : configs) {
                if (devices.containsKey(c.deviceName())) {
                    throw new IllegalArgumentException("duplicate device name " + c.deviceName());
                }
                devices.put(c.deviceName(), new SoftRnic(c));
            }
        } catch (RuntimeException e) {
            // a device that cannot start (a port in use) must not leave the others' threads and sockets
            close();
            throw e;
        }
    }

    /** @param configs one per device; names must be unique */
    public SoftVerbsProvider(SoftRnicConfig... configs) {
        this(List.of(configs));
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<RdmaDevice> devices() {
        List<RdmaDevice> out = new ArrayList<>();
        for (SoftRnic d : devices.values()) {
            out.add(new RdmaDevice(d.name(), d.configuredVnics()));
        }
        return out;
    }

    @Override
    public IbvContext openDevice(String deviceName) throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.ENODEV, "soft verbs provider closed");
        }
        SoftRnic d = deviceName == null
                ? devices.values().stream().findFirst().orElse(null)
                : devices.get(deviceName);
        if (d == null) {
            throw new VerbsException(VerbsException.ENODEV, "no soft RNIC device "
                    + (deviceName == null ? "configured" : "named " + deviceName) + "; devices: "
                    + devices.keySet());
        }
        return d.open();
    }

    /**
     * @param deviceName a configured device
     * @return the device (for diagnostics such as {@link SoftRnic#isRunning()}), or null
     */
    public SoftRnic device(String deviceName) {
        return devices.get(deviceName);
    }

    /** Closes every device (contexts, engine threads, wires). Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (SoftRnic d : devices.values()) {
            d.close();
        }
    }

    @Override
    public String toString() {
        return "SoftVerbsProvider" + devices.values();
    }
}
