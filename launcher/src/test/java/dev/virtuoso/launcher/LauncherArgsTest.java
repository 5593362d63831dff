package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class LauncherArgsTest {

    @Test
    void subcommandTakesTheRestOfTheLine() throws Exception {
        LauncherArgs a = LauncherArgs.parse(new String[] {"-v", "--feature", "virtuoso-disni", "bench", "-s", "4096", "-v",
            "host"});
        assertEquals(Subcommand.BENCH, a.subcommand());
        assertEquals(List.of("-s", "4096", "-v", "host"), a.args());
        assertTrue(a.verbose());
        assertEquals(List.of("virtuoso-disni"), a.extraFeatures());
        assertEquals(List.of("x"), LauncherArgs.parse(new String[] {"--feature=x", "demo"}).extraFeatures());
    }

    @Test
    void configsArePidKeyValueListsAndALaterValueWins() throws Exception {
        LauncherArgs a = LauncherArgs.parse(new String[] {"--config", "dev.virtuoso.qpmanager:engineInvokeOnPoll=true",
            "--config=dev.virtuoso.verbs.soft:invokeOnPoll=true, yieldMicros = 50",
            "--config", "dev.virtuoso.qpmanager:engineSpinMicros=0,engineInvokeOnPoll=false", "bench", "h"});
        assertEquals(java.util.Map.of("dev.virtuoso.qpmanager", java.util.Map.of("engineInvokeOnPoll", "false",
                "engineSpinMicros", "0"), "dev.virtuoso.verbs.soft", java.util.Map.of("invokeOnPoll", "true",
                "yieldMicros", "50")), a.configs());
        assertEquals(List.of("h"), a.args());
        assertEquals(java.util.Map.of(), LauncherArgs.parse(new String[] {"demo"}).configs());
        assertEquals(java.util.Map.of("p", java.util.Map.of("k", "")),
                LauncherArgs.parse(new String[] {"--config", "p:k=", "demo"}).configs(), "an empty value is a value");
    }

    @Test
    void helpForms() throws Exception {
        assertTrue(LauncherArgs.parse(new String[] {"--help"}).helpOnly());
        assertTrue(LauncherArgs.parse(new String[] {"help"}).helpOnly());
        LauncherArgs h = LauncherArgs.parse(new String[] {"help", "demo"});
        assertEquals(Subcommand.DEMO, h.subcommand());
        assertEquals(List.of("--help"), h.args());
    }

    @Test
    void badLinesAreUsageErrors() {
        for (String[] bad : new String[][] {{}, {"frobnicate"}, {"--bogus", "demo"}, {"--feature"}, {"-v"},
            {"shell", "extra"}, {"help", "nothing"}, {"--config"}, {"--config", "noColon", "demo"},
            {"--config", ":k=v", "demo"}, {"--config", "pid:", "demo"}, {"--config", "pid:novalue", "demo"},
            {"--config", "pid:k=v,", "demo"}, {"--config", "pid:=v", "demo"}, {"--config", "bad pid:k=v", "demo"}}) {
            assertThrows(UsageException.class, () -> LauncherArgs.parse(bad), String.join(" ", bad));
        }
    }

    @Test
    void usageNamesEverySubcommand() {
        String u = LauncherArgs.usage();
        for (Subcommand s : Subcommand.values()) {
            assertTrue(u.contains("  " + s.cliName() + " "), s.cliName());
        }
    }

    @Test
    void usageListsEveryScriptSubcommand() {
        for (String name : List.of("demo", "bench", "shell", "paths", "testbed", "experiment")) {
            org.junit.jupiter.api.Assertions.assertTrue(LauncherArgs.usage().contains("  " + name), name);
        }
    }
}
