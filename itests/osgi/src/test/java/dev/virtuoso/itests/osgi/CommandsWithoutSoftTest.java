package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

import org.junit.Test;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.CoreOptions;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

/**
 * The commands bundle where a user may put it: every project bundle but verbs-soft. It resolves and
 * starts (its imports of verbs-soft's fabric API and of java.desktop are optional), its commands
 * register, {@code vnics} runs and {@code link} says that no fabric runs instead of failing.
 */
public class CommandsWithoutSoftTest extends VirtuosoOsgiTestSupport {

    private static final String COMMANDS = "dev.virtuoso.commands";

    @Override
    @Configuration
    public Option[] config() {
        return new Option[] {
            VirtuosoOsgiOptions.frameworkSetup(),
            VirtuosoOsgiOptions.runtime(),
            CoreOptions.composite(VirtuosoOsgiOptions.projectLocationsOnHost().stream()
                    .filter(location -> !location.contains("virtuoso-verbs-soft"))
                    .map(location -> CoreOptions.bundle(location).start())
                    .collect(Collectors.toList()).toArray(new Option[0])),
        };
    }

    @Test
    public void commandsBundleResolvesAndWorksWithoutVerbsSoft() throws Exception {
        for (Bundle b : context().getBundles()) {
            assertTrue("verbs-soft is not installed", !"dev.virtuoso.verbs.soft".equals(b.getSymbolicName()));
        }
        Bundle commands = bundle(COMMANDS);
        assertEquals("commands bundle state: " + BundleDiagnostics.describe(commands), Bundle.ACTIVE,
                commands.getState());
        String printed = call("link", "list");
        assertTrue(printed, printed.contains("no in-process fabric is running"));
        printed = call("vnics");
        assertTrue(printed, printed.startsWith("provider") && printed.contains("(not registered: is virtuoso-soft installed?)"));
    }

    /** Calls a virtuoso command like Gogo does, returning what it printed or "failed: " and what it threw. */
    private String call(String function, String... args) throws Exception {
        ServiceReference<?>[] refs = context().getServiceReferences((String) null,
                "(&(osgi.command.scope=virtuoso)(osgi.command.function=" + function + "))");
        assertNotNull("no virtuoso:" + function + " command service\n" + diagnose(Object.class, COMMANDS), refs);
        Object service = context().getService(refs[0]);
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            service.getClass().getMethod(function, String[].class).invoke(service, (Object) args);
        } catch (InvocationTargetException e) {
            return "failed: " + e.getCause();
        } finally {
            System.setOut(old);
            context().ungetService(refs[0]);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }
}
