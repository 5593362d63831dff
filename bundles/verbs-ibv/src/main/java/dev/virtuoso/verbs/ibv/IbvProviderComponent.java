package dev.virtuoso.verbs.ibv;

import dev.virtuoso.spi.verbs.VerbsProvider;
import java.lang.System.Logger.Level;
import java.util.Hashtable;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Registers the libibverbs {@link VerbsProvider} ({@code provider=ibv}) when, and only when,
 * libibverbs loads and lists a device. Otherwise it logs one line naming what is missing and
 * registers nothing, so a core that asks for {@code provider=ibv} waits instead of silently using
 * another binding.
 */
@Component(immediate = true, configurationPid = IbvProviderComponent.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = IbvProviderComponent.Config.class)
public final class IbvProviderComponent {
    /** Configuration PID. */
    public static final String PID = "dev.virtuoso.verbs.ibv";

    private static final System.Logger LOG = System.getLogger(IbvProviderComponent.class.getName());

    /** Configuration of the libibverbs binding. */
    @ObjectClassDefinition(name = "Virtuoso libibverbs verbs binding",
            description = "RDMA devices through libibverbs and java.lang.foreign (JDK 22+)")
    public @interface Config {
        @AttributeDefinition(description = "Name (dlopen search) or path of libibverbs")
        String libraryName() default "libibverbs.so.1";
    }

    private ServiceRegistration<VerbsProvider> registration;
    private volatile String status = "not activated";

    @Activate
    void activate(BundleContext bundleContext, Config config) {
        IbvAvailability.Result r = IbvAvailability.check(config.libraryName());
        if (!r.available()) {
            status = "libibverbs verbs provider (provider=ibv) not registered: " + r.problem();
            LOG.log(Level.INFO, status);
            return;
        }
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(VerbsProvider.PROVIDER_PROPERTY, IbvVerbsProvider.NAME);
        props.put("service.description", "RDMA verbs over libibverbs (devices: " + String.join(", ", r.devices()) + ")");
        registration = bundleContext.registerService(VerbsProvider.class, r.provider(), props);
        status = "libibverbs verbs provider (provider=ibv) registered for " + String.join(", ", r.devices());
        LOG.log(Level.INFO, status);
    }

    /** @return the last activation's outcome, as logged */
    String status() {
        return status;
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
    }
}
