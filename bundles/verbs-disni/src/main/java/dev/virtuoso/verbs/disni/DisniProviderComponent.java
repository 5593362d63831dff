package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.Hashtable;
import java.util.stream.Collectors;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.disni.sysfs.RdmaSysfs;

/**
 * Registers the DiSNI {@link VerbsProvider} ({@code provider=disni}) when, and only when, libdisni
 * loads and an RDMA device with an IPv4 RoCE v2 GID is present. Otherwise it logs one line naming
 * what is missing and registers nothing, so a core that asks for {@code provider=disni} fails with
 * "provider unavailable" instead of silently using another binding.
 */
@Component(immediate = true, configurationPid = DisniProviderComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = DisniProviderComponent.Config.class)
public final class DisniProviderComponent {
    /** Configuration PID. */
    public static final String PID = "dev.virtuoso.verbs.disni";

    private static final System.Logger LOG = System.getLogger(DisniProviderComponent.class.getName());

    /** Configuration of the DiSNI binding. */
    @ObjectClassDefinition(name = "Virtuoso DiSNI verbs binding",
            description = "Real RoCE NICs through DiSNI 2.1 and libdisni")
    public @interface Config {
        @AttributeDefinition(description = "Directory standing for /sys (RDMA devices and GID tables)")
        String sysfsRoot() default "/sys";

        @AttributeDefinition(description = "Milliseconds a QP may take from RTR to an established RDMA CM connection")
        int connectTimeoutMillis() default 10_000;

        @AttributeDefinition(description = "First RDMA CM port used as a QP number", min = "1", max = "65535")
        int firstQpn() default DisniSettings.DEFAULT_FIRST_QPN;
    }

    private DisniVerbsProvider provider;
    private ServiceRegistration<VerbsProvider> registration;

    @Activate
    void activate(BundleContext bundleContext, Config config) {
        DisniSettings settings = new DisniSettings(Path.of(config.sysfsRoot()), config.connectTimeoutMillis(),
                config.firstQpn(), DisniSettings.defaults().cmPollMillis());
        DisniAvailability.Result r = DisniAvailability.check(new RdmaSysfs(settings.sysfsRoot()),
                DisniAvailability::probeLibrary);
        if (!r.available()) {
            LOG.log(Level.INFO, "DiSNI verbs provider (provider=disni) not registered: " + r.problem());
            return;
        }
        String devices;
        try {
            provider = new DisniVerbsProvider(settings);
            devices = provider.devices().stream().map(RdmaDevice::name).collect(Collectors.joining(", "));
        } catch (IOException e) { // includes VerbsException
            LOG.log(Level.INFO, "DiSNI verbs provider (provider=disni) not registered: " + e.getMessage());
            provider = null;
            return;
        }
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(VerbsProvider.PROVIDER_PROPERTY, DisniVerbsProvider.NAME);
        props.put("service.description", "RDMA verbs over DiSNI 2.1 (devices: " + devices + ")");
        registration = bundleContext.registerService(VerbsProvider.class, provider, props);
        LOG.log(Level.INFO, "DiSNI verbs provider (provider=disni) registered for " + devices);
    }

    @Deactivate
    void deactivate() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the framework unregisters services of a stopping bundle itself
            }
            registration = null;
        }
        if (provider != null) {
            provider.close();
            provider = null;
        }
    }
}
