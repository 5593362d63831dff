package dev.virtuoso.pathmonitor.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.pathmonitor.api.PathMonitor;
import dev.virtuoso.pathmonitor.api.ProbeRequest;
import dev.virtuoso.spi.policy.ChunkOutcome;

class PathMonitorServiceTest {

    static PathMonitorConfig config(long flowBytes) {
        return new PathMonitorConfig() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return PathMonitorConfig.class;
            }

            @Override
            public long probeFlowBytes() {
                return flowBytes;
            }

            @Override
            public long probeWriteBytes() {
                return 131072;
            }

            @Override
            public long probeIntervalMillis() {
                return 0;
            }

            @Override
            public int probeParallelPaths() {
                return 0;
            }

            @Override
            public int initialProbeFlows() {
                return 4;
            }

            @Override
            public long rateTimeConstantMillis() {
                return 200;
            }

            @Override
            public long minSampleMicros() {
                return 1000;
            }

            @Override
            public long stallTimeoutMillis() {
                return 1000;
            }

            @Override
            public int errorThreshold() {
                return 3;
            }

            @Override
            public long errorCooldownMillis() {
                return 100;
            }

            @Override
            public long maxErrorCooldownMillis() {
                return 30000;
            }

            @Override
            public long sharedCapacityMaxAgeMillis() {
                return 30000;
            }
        };
    }

    @Test
    void builtInDefaultsMatchTheMetatypeDefaults() {
        assertEquals(MonitorSettings.of(config(524288)), MonitorSettings.DEFAULTS);
        PathMonitor m = new PathMonitorService().newMonitor("plain", Map.of(), 0);
        m.onPathAdded(0);
        assertTrue(m.usable(0), "usable without ConfigAdmin");
    }

    @Test
    void configuredDefaultsConnectionOverridesAndCommands() {
        PathMonitorService svc = new PathMonitorService();
        svc.configure(config(1 << 20));
        PathMonitor m = svc.newMonitor("conn-7", Map.of(), 128 * 1024);
        m.tick(System.nanoTime());
        m.onPathAdded(0);
        ProbeRequest req = new ProbeRequest();
        int n = 0;
        while (m.nextProbe(req)) {
            n++;
        }
        assertEquals(8, n, "1 MiB configured flow in 128 KiB WRITEs");
        PathMonitor other = svc.newMonitor("conn-8", Map.of("pathmonitor.probeFlowBytes", 524288), 128 * 1024);
        other.onPathAdded(0);
        n = 0;
        while (other.nextProbe(req)) {
            n++;
        }
        assertEquals(4, n, "per-connection override");

        String table = svc.monitorText("conn-7");
        assertTrue(table.contains("connection conn-7") && table.contains("HEALTHY"), table);
        assertTrue(svc.monitorText().contains("conn-8"));
        for (int i = 0; i < 8; i++) {
            m.onProbeCompleted(0, 131072, 1_000_000, ChunkOutcome.SUCCESS);
        }
        assertEquals("probe requested on connection conn-7 path 0", svc.probeText("conn-7", 0));
        m.tick(System.nanoTime() + 2_000_000);
        assertTrue(m.nextProbe(req), "the command's request starts a flow at the next tick");
        assertTrue(svc.probeText("conn-7", 5).contains("no path 5"));
        m.close();
        assertFalse(svc.monitorText().contains("conn-7"), "closed monitors leave the registry");
        assertTrue(svc.probeText("conn-7", 0).startsWith("no path monitor"));
        assertThrows(IllegalArgumentException.class, () -> svc.configure(config(4096)));
    }
}
