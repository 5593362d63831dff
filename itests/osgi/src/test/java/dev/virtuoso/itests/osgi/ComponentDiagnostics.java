package dev.virtuoso.itests.osgi;

import java.util.ArrayList;
import java.util.List;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.component.runtime.dto.UnsatisfiedReferenceDTO;

/**
 * Reads Declarative Services state through {@link ServiceComponentRuntime}, so that a missing
 * service is reported with the reason its component is not running (unsatisfied reference,
 * missing configuration, activation failure).
 *
 * <p>Stateless; every call gets and releases the runtime service.
 */
public final class ComponentDiagnostics {

    private ComponentDiagnostics() {
    }

    /**
     * Describes every component of a bundle and the state of each of its configurations.
     *
     * @param context the caller's context
     * @param bundle the bundle whose components to describe
     * @return one line per component configuration; a single explanatory line when SCR is absent
     */
    public static List<String> describe(BundleContext context, Bundle bundle) {
        return collect(context, bundle, -1);
    }

    /**
     * Lists the component configurations of a bundle that failed to activate.
     *
     * @param context the caller's context
     * @param bundle the bundle to check
     * @return one entry per failed configuration with SCR's failure text, or a single entry when
     *     SCR is absent; empty if nothing failed
     */
    public static List<String> failures(BundleContext context, Bundle bundle) {
        return collect(context, bundle, ComponentConfigurationDTO.FAILED_ACTIVATION);
    }

    /**
     * Lists the component configurations of a bundle waiting for a mandatory reference.
     *
     * @param context the caller's context
     * @param bundle the bundle to check
     * @return one entry per such configuration naming the references, or a single entry when SCR
     *     is absent; empty if every reference is satisfied
     */
    public static List<String> unsatisfied(BundleContext context, Bundle bundle) {
        return collect(context, bundle, ComponentConfigurationDTO.UNSATISFIED_REFERENCE);
    }

    /** @param onlyState a configuration state to select, or -1 for everything */
    private static List<String> collect(BundleContext context, Bundle bundle, int onlyState) {
        boolean all = onlyState < 0;
        List<String> lines = new ArrayList<>();
        ServiceReference<ServiceComponentRuntime> ref = context.getServiceReference(ServiceComponentRuntime.class);
        ServiceComponentRuntime scr = ref == null ? null : context.getService(ref);
        if (scr == null) {
            lines.add("ServiceComponentRuntime not available: is Felix SCR active?");
            return lines;
        }
        try {
            for (ComponentDescriptionDTO description : scr.getComponentDescriptionDTOs(bundle)) {
                if (!scr.isComponentEnabled(description)) {
                    if (all) {
                        lines.add(description.name + ": disabled");
                    }
                    continue;
                }
                var configurations = scr.getComponentConfigurationDTOs(description);
                if (configurations.isEmpty() && all) {
                    lines.add(description.name + ": no configuration (configuration policy "
                            + description.configurationPolicy + ")");
                }
                for (ComponentConfigurationDTO configuration : configurations) {
                    if (all || configuration.state == onlyState) {
                        lines.add(description.name + ": " + describe(configuration));
                    }
                }
            }
        } finally {
            context.ungetService(ref);
        }
        return lines;
    }

    private static String describe(ComponentConfigurationDTO configuration) {
        StringBuilder text = new StringBuilder(stateName(configuration.state));
        for (UnsatisfiedReferenceDTO reference : configuration.unsatisfiedReferences) {
            text.append(", unsatisfied reference ").append(reference.name)
                    .append(" target ").append(reference.target);
        }
        if (configuration.failure != null) {
            text.append(", failure: ").append(configuration.failure);
        }
        return text.toString();
    }

    private static String stateName(int state) {
        switch (state) {
            case ComponentConfigurationDTO.UNSATISFIED_CONFIGURATION: return "UNSATISFIED_CONFIGURATION";
            case ComponentConfigurationDTO.UNSATISFIED_REFERENCE: return "UNSATISFIED_REFERENCE";
            case ComponentConfigurationDTO.SATISFIED: return "SATISFIED";
            case ComponentConfigurationDTO.ACTIVE: return "ACTIVE";
            case ComponentConfigurationDTO.FAILED_ACTIVATION: return "FAILED_ACTIVATION";
            default: return "state " + state;
        }
    }
}
