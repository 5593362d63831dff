package dev.virtuoso.itests.robustness.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** Runs the soak command for a few seconds, so it cannot rot: the same code as the 10-minute run. */
class SoakSmokeTest {
    @Test
    @SuppressWarnings("unchecked")
    void shortSoakVerifiesEveryKindOfOperationAcrossReconnectsAndPolicySwaps() throws Exception {
        Path out = Path.of("target", "soak-smoke");
        SoakConfig config = SoakConfig.parse("--duration=4s", "--paths=2", "--connections=2", "--churn=1500ms",
                "--swap=300ms", "--max-message=256k", "--progress=2s", "--op-timeout=30s", "--out=" + out);
        Soak.Result r = new Soak(config).run();
        Map<String, Object> totals = (Map<String, Object>) r.report().get("totals");
        assertTrue(r.passed(), "soak failed: " + totals + " " + r.report().get("details"));
        Map<String, Object> perKind = (Map<String, Object>) r.report().get("perKind");
        for (SoakStats.Kind k : SoakStats.Kind.values()) {
            long ops = (Long) ((Map<String, Object>) perKind.get(k.name())).get("ops");
            assertTrue(ops > 0, "no verified " + k + " in " + perKind);
        }
        assertTrue((Long) totals.get("opsBelowSplit") > 0 && (Long) totals.get("opsAtOrAboveSplit") > 0, totals.toString());
        assertTrue((Long) totals.get("connects") >= 3, "no connection churn: " + totals);
        assertTrue((Long) totals.get("policySwaps") > 0, "no policy swap: " + totals);
        Map<String, Object> fabric = (Map<String, Object>) r.report().get("fabric");
        assertTrue((Long) fabric.get("DROPPED_LOSS") > 0, "the links dropped nothing: " + fabric);
        assertEquals("PASS", r.report().get("verdict"));
        assertTrue(Files.readString(out.resolve("soak-summary.json")).contains("\"verdict\": \"PASS\""));
        assertTrue(Files.readAllLines(out.resolve("soak-progress.csv")).size() >= 3);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theSameSoakPassesWithTheEngineRunByThePollingWorkers() throws Exception {
        SoakConfig config = SoakConfig.parse("--duration=4s", "--paths=2", "--connections=2", "--churn=1500ms",
                "--swap=300ms", "--max-message=256k", "--progress=2s", "--op-timeout=30s", "--invoke-on-poll=true",
                "--out=" + Path.of("target", "soak-smoke-invoker"));
        Soak.Result r = new Soak(config).run();
        assertTrue(r.passed(), "soak failed: " + r.report().get("totals") + " " + r.report().get("details"));
        Map<String, Object> engine = (Map<String, Object>) r.report().get("engine");
        assertEquals(true, engine.get("invokeOnPoll"));
        assertTrue((Long) engine.get("invokes") > 0, "the workers' polls ran no duty cycle: " + engine);
        assertEquals(0L, engine.get("agentErrors"));
    }
}
