package dev.virtuoso.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The experiment script's argument checks: every experiment is listed, and bad options or values
 * end with a message and a non-zero exit before anything is set up (no root needed: the checks come
 * before the testbed).
 */
class ExperimentScriptTest {

    private static final Path SCRIPT = Path.of("src/main/sh/experiment.sh");

    private static LauncherRuns.Exited run(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString()));
        cmd.addAll(List.of(args));
        return LauncherRuns.exec(cmd, Map.of(), 30);
    }

    @Test
    void helpListsEveryExperiment() throws Exception {
        LauncherRuns.Exited r = run("--help");
        assertEquals(2, r.code());
        for (String e : List.of("fig5", "fig6", "fig7", "table2", "fig8", "all", "--elephant-rate", "--queue", "--window",
                "--loss", "--msg-sizes")) {
            assertTrue(r.output().contains(e), "usage mentions " + e + ": " + r.output());
        }
    }

    @Test
    void badExperimentsOptionsAndValuesFailWithAMessage() throws Exception {
        String[][] bad = {
            {"fig9"},
            {"fig7", "--bogus", "1"},
            {"fig5", "--count", "3"},
            {"fig5", "--size", "6M"},
            {"fig5", "--paths", "0 2"},
            {"fig6", "--paths", "2 4"},
            {"fig7", "--interval", "0"},
            {"fig7", "--elephant-rate", "200mbit"},
            {"fig7", "--paths", "1"},
            {"table2", "--window", "4"},
            {"table2", "--retry", "9"},
            {"table2", "--queue"},
            {"table2", "--loss", "80"},
            {"table2", "--loss", "1%"},
            {"table2", "--loss-paths", "12"},
            {"table2", "--loss-mib", "12"},
            {"table2", "--fixed-msgs", "-1"},
            {"fig8", "--msg-sizes", "3M"},
            {"all", "--paths", "2"},
            {"all", "--size", "6M"},
        };
        for (String[] args : bad) {
            LauncherRuns.Exited r = run(args);
            assertTrue(r.code() != 0, String.join(" ", args) + " must fail: " + r.output());
            assertTrue(r.output().startsWith("experiment: "), String.join(" ", args) + " says why: " + r.output());
            assertTrue(!r.output().contains("testbed up"), "nothing was set up: " + r.output());
        }
    }
}
