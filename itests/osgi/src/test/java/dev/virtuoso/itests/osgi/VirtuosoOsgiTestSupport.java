package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Base class of the Pax Exam tests: boots the framework surefire put on the class path (Felix or
 * Equinox, one framework per test class, see {@code exam.properties}) with
 * {@link VirtuosoOsgiOptions#baseline()}, and offers bounded waits for services with diagnostics
 * that say why a service is missing.
 *
 * <p>Subclasses add {@code @Test} methods; to change the provisioned bundles they override
 * {@link #config()} (keep it annotated with {@code @Configuration}).
 */
@RunWith(PaxExam.class)
public abstract class VirtuosoOsgiTestSupport {

    /** Upper bound for any service to appear; DS components register within milliseconds. */
    protected static final Duration SERVICE_TIMEOUT = Duration.ofSeconds(10);

    /**
     * The framework configuration for this test class.
     *
     * @return {@link VirtuosoOsgiOptions#baseline()}
     */
    @Configuration
    public Option[] config() {
        return VirtuosoOsgiOptions.baseline();
    }

    /** @return the context of the test probe bundle */
    protected BundleContext context() {
        Bundle probe = FrameworkUtil.getBundle(getClass());
        assertNotNull("test class is not loaded by an OSGi bundle: not running inside the framework", probe);
        return probe.getBundleContext();
    }

    /**
     * Finds an installed bundle by symbolic name.
     *
     * @param symbolicName the Bundle-SymbolicName
     * @return the bundle; the test fails, listing the installed bundles, if there is none
     */
    protected Bundle bundle(String symbolicName) {
        List<String> installed = new ArrayList<>();
        for (Bundle candidate : context().getBundles()) {
            if (symbolicName.equals(candidate.getSymbolicName())) {
                return candidate;
            }
            installed.add(BundleDiagnostics.describe(candidate));
        }
        fail("bundle " + symbolicName + " is not installed; installed:\n  " + String.join("\n  ", installed));
        return null;
    }

    /**
     * Waits, at most {@code timeout}, for a service and gets it (which activates a delayed DS
     * component). On timeout the test fails with the registered services of that type, the state
     * of the bundle expected to publish it and of its components.
     *
     * @param <S> the service type
     * @param type the service interface
     * @param filter an extra LDAP filter on the service properties, or {@code null}
     * @param publisher symbolic name of the bundle expected to register it, or {@code null} for any
     * @param timeout the bound
     * @return the tracked service; close it when done
     */
    protected <S> TrackedService<S> awaitService(Class<S> type, String filter, String publisher, Duration timeout) {
        BundleContext context = context();
        StringBuilder spec = new StringBuilder("(&(").append(Constants.OBJECTCLASS).append('=')
                .append(type.getName()).append(')');
        if (filter != null) {
            spec.append(filter);
        }
        if (publisher != null) {
            spec.append("(").append(Constants.SERVICE_BUNDLEID).append('=')
                    .append(bundle(publisher).getBundleId()).append(')');
        }
        spec.append(')');
        Filter ldap;
        try {
            ldap = context.createFilter(spec.toString());
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException("bad filter " + spec, e);
        }
        ServiceTracker<S, S> tracker = new ServiceTracker<>(context, ldap, null);
        tracker.open();
        boolean handedOver = false;
        try {
            S service = tracker.waitForService(timeout.toMillis());
            if (service == null) {
                fail("no service " + spec + " within " + timeout.toMillis() + " ms\n"
                        + diagnose(type, publisher));
            }
            TrackedService<S> tracked = new TrackedService<>(tracker, service, tracker.getServiceReference());
            handedOver = true;
            return tracked;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + spec, e);
        } finally {
            if (!handedOver) {
                tracker.close();
            }
        }
    }

    /**
     * Explains a missing service: who registers that type now, and the bundle and DS components
     * of the expected publisher.
     *
     * @param type the service interface
     * @param publisher symbolic name of the expected publisher, or {@code null}
     * @return a multi-line report
     */
    protected String diagnose(Class<?> type, String publisher) {
        BundleContext context = context();
        StringBuilder report = new StringBuilder("registered " + type.getName() + " services:");
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences(type.getName(), null);
            if (refs == null) {
                report.append(" none");
            } else {
                for (ServiceReference<?> ref : refs) {
                    report.append("\n  from ").append(ref.getBundle().getSymbolicName()).append(' ')
                            .append(properties(ref));
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        if (publisher != null) {
            Bundle bundle = bundle(publisher);
            String problem = BundleDiagnostics.problem(bundle);
            report.append("\nbundle ").append(problem == null ? BundleDiagnostics.describe(bundle) : problem);
            report.append("\ncomponents of ").append(publisher).append(':');
            for (String line : ComponentDiagnostics.describe(context, bundle)) {
                report.append("\n  ").append(line);
            }
        }
        return report.toString();
    }

    private static String properties(ServiceReference<?> ref) {
        StringBuilder text = new StringBuilder("{");
        for (String key : ref.getPropertyKeys()) {
            Object value = ref.getProperty(key);
            text.append(key).append('=')
                    .append(value instanceof Object[] ? Arrays.toString((Object[]) value) : value).append(", ");
        }
        return text.append('}').toString();
    }
}
