package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** Every subcommand's features resolve in the shipped descriptor to the bundles it needs. */
class SubcommandFeaturesTest {

    private static List<String> locations(Features repo, Subcommand s) throws Exception {
        return repo.bundlesFor(s.features()).stream().map(FeatureBundle::location).toList();
    }

    @Test
    void featuresResolveToTheNeededBundles() throws Exception {
        Features repo = Features.load();
        for (Subcommand s : Subcommand.values()) {
            List<String> b = locations(repo, s);
            assertTrue(b.stream().anyMatch(l -> l.contains("/org.apache.felix.scr/")), s + " needs SCR");
            assertTrue(b.stream().anyMatch(l -> l.contains("/org.apache.felix.configadmin/")), s + " needs ConfigAdmin");
            assertTrue(b.stream().anyMatch(l -> l.contains("/virtuoso-qpmanager/")), s + " needs the core");
            assertTrue(b.stream().anyMatch(l -> l.contains("/virtuoso-verbs-soft/")), s + " needs the soft RNIC");
            assertTrue(b.stream().anyMatch(l -> l.contains("/virtuoso-commands/")), s + " needs the commands");
            assertTrue(b.indexOf(b.stream().filter(l -> l.contains("/virtuoso-api/")).findFirst().orElseThrow())
                    < b.indexOf(b.stream().filter(l -> l.contains("/virtuoso-qpmanager/")).findFirst().orElseThrow()),
                    "dependencies first");
        }
        assertTrue(locations(repo, Subcommand.SHELL).stream().anyMatch(l -> l.contains("/org.apache.felix.gogo.jline/")));
        assertFalse(locations(repo, Subcommand.DEMO).stream().anyMatch(l -> l.contains("/org.apache.felix.gogo.jline/")),
                "only the shell takes the terminal");
        assertTrue(locations(repo, Subcommand.DEMO).stream().anyMatch(l -> l.contains("/virtuoso-policy-lb-adaptive/")));
    }
}
