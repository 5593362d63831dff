package dev.virtuoso.commands.bench;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * What the policy name {@code default} stands for now: the {@code virtuoso.policy.default.for}
 * property of the policy services the binding publishes under that name (read by class name, so
 * the commands bundle needs no import of the policy SPI).
 */
final class DefaultPolicyNames {
    private static final String FILTER = "(virtuoso.policy.name=default)";
    private static final String STANDS_FOR = "virtuoso.policy.default.for";

    private DefaultPolicyNames() {
    }

    /**
     * @param context a bundle context, or {@code null}
     * @return {load balancer, congestion avoidance} ("none" where nothing is published), or
     *     {@code null} without a context
     */
    static String[] read(BundleContext context) {
        if (context == null) {
            return null;
        }
        return new String[] {standsFor(context, "dev.virtuoso.spi.policy.LoadBalancerPolicy"),
            standsFor(context, "dev.virtuoso.spi.policy.CongestionAvoidancePolicy")};
    }

    private static String standsFor(BundleContext context, String type) {
        try {
            ServiceReference<?>[] refs = context.getServiceReferences(type, FILTER);
            if (refs == null || refs.length == 0) {
                return "none";
            }
            return String.valueOf(refs[0].getProperty(STANDS_FOR));
        } catch (InvalidSyntaxException | IllegalStateException e) {
            return "unknown";
        }
    }
}
