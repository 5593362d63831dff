package dev.virtuoso.commands;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * Configures the soft RNIC provider through ConfigAdmin (its PID {@value #PID}: {@code wire},
 * {@code fabricSpec}, {@code devices}, {@code udpPort}) and waits until the re-created
 * {@code provider=soft} service lists the expected devices; the previous configuration's other
 * properties (the soft RNIC's tuning) are kept. {@link #close()} puts back the configuration that
 * was there before. One instance per use; not thread-safe.
 */
public final class SoftProviderConfig implements AutoCloseable {

    /** Configuration PID of the soft RNIC provider (bundles/verbs-soft SoftVerbsComponent). */
    public static final String PID = "dev.virtuoso.verbs.soft";
    /** Provider name of the soft RNIC. */
    public static final String PROVIDER = "soft";
    /** The properties this class sets (a previous configuration's other properties are kept). */
    private static final Set<String> WIRE_KEYS = Set.of("wire", "fabricSpec", "devices", "udpPort", "windowPackets");

    private final VirtuosoServices services;
    private final Configuration configuration;
    private final Dictionary<String, Object> previous;
    private boolean closed;

    private SoftProviderConfig(VirtuosoServices services, Configuration configuration,
            Dictionary<String, Object> previous) {
        this.services = services;
        this.configuration = configuration;
        this.previous = previous;
    }

    /**
     * Puts the soft provider on an in-process fabric; each fabric host becomes a device.
     *
     * @param services the commands' services
     * @param spec the fabric spec (hosts and links)
     * @param devices the host names expected as devices
     * @return the applied configuration, to close when done
     * @throws IOException if ConfigAdmin is missing or the devices do not appear within 10 s
     * @throws InterruptedException if interrupted
     */
    public static SoftProviderConfig fabric(VirtuosoServices services, String spec, Set<String> devices)
            throws IOException, InterruptedException {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("wire", "fabric");
        p.put("fabricSpec", spec);
        return apply(services, p, devices);
    }

    /**
     * Puts the soft provider on the UDP wire with the given devices.
     *
     * @param services the commands' services
     * @param devices entries {@code name=address[,address...]}
     * @param udpPort the RoCEv2 UDP port of every vNIC
     * @return the applied configuration, to close when done
     * @throws IOException if ConfigAdmin is missing or the devices do not appear within 10 s
     * @throws InterruptedException if interrupted
     */
    public static SoftProviderConfig udp(VirtuosoServices services, List<String> devices, int udpPort)
            throws IOException, InterruptedException {
        return udp(services, devices, udpPort, 0);
    }

    /**
     * Puts the soft provider on the UDP wire with the given devices and requester window.
     *
     * @param services the commands' services
     * @param devices entries {@code name=address[,address...]}
     * @param udpPort the RoCEv2 UDP port of every vNIC
     * @param windowPackets unacknowledged packets a requester may have outstanding
     *     ({@code windowPackets} of the provider), 0 for the provider's default
     * @return the applied configuration, to close when done
     * @throws IOException if ConfigAdmin is missing or the devices do not appear within 10 s
     * @throws InterruptedException if interrupted
     */
    public static SoftProviderConfig udp(VirtuosoServices services, List<String> devices, int udpPort, int windowPackets)
            throws IOException, InterruptedException {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("wire", "udp");
        p.put("devices", devices.toArray(String[]::new));
        p.put("udpPort", udpPort);
        if (windowPackets > 0) {
            p.put("windowPackets", windowPackets);
        }
        Set<String> names = new TreeSet<>();
        for (String d : devices) {
            names.add(d.substring(0, d.indexOf('=')));
        }
        return apply(services, p, names);
    }

    private static SoftProviderConfig apply(VirtuosoServices services, Hashtable<String, Object> props,
            Set<String> devices) throws IOException, InterruptedException {
        ConfigurationAdmin ca = services.configAdmin();
        Configuration c = ca.getConfiguration(PID, "?");
        Dictionary<String, Object> previous = c.getProperties();
        // the devices and the wire are this command's; any other setting of the soft RNIC (its idle
        // strategy, invokeOnPoll, e.g. from the launcher's --config) stays as configured
        Hashtable<String, Object> merged = new Hashtable<>();
        if (previous != null) {
            for (java.util.Enumeration<String> keys = previous.keys(); keys.hasMoreElements();) {
                String k = keys.nextElement();
                if (!WIRE_KEYS.contains(k)) {
                    merged.put(k, previous.get(k));
                }
            }
        }
        merged.putAll(props);
        c.update(merged);
        SoftProviderConfig applied = new SoftProviderConfig(services, c, previous);
        try {
            applied.awaitDevices(devices, 10, TimeUnit.SECONDS);
        } catch (IOException | InterruptedException | RuntimeException e) {
            applied.close();
            throw e;
        }
        return applied;
    }

    private void awaitDevices(Set<String> expected, long timeout, TimeUnit unit) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        Set<String> seen = Set.of();
        while (System.nanoTime() < deadline) {
            for (VirtuosoServices.Named<dev.virtuoso.spi.verbs.VerbsProvider> p : services.providers()) {
                if (!PROVIDER.equals(p.name())) {
                    continue;
                }
                try {
                    Set<String> names = new TreeSet<>();
                    for (RdmaDevice d : p.service().devices()) {
                        names.add(d.name());
                    }
                    seen = names;
                    if (names.containsAll(expected)) {
                        return;
                    }
                } catch (VerbsException | IllegalStateException e) {
                    // being re-created: try again
                }
            }
            Thread.sleep(20);
        }
        throw new IOException("the soft RNIC provider did not offer devices " + expected + " within "
                + unit.toSeconds(timeout) + " s (it offers " + seen + "; is dev.virtuoso.verbs.soft active?)");
    }

    /** Restores the configuration that was there before (or deletes it). Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (previous == null) {
                configuration.delete();
            } else {
                configuration.update(previous);
            }
        } catch (IOException | IllegalStateException e) {
            // the framework is going down: nothing left to restore
        }
    }
}
