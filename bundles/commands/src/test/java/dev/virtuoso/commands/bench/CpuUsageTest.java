package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class CpuUsageTest {

    @Test
    void roleIsTheSecondPartOfTheThreadName() {
        assertEquals("soft", CpuUsage.role("virtuoso-soft-bench"));
        assertEquals("conn", CpuUsage.role("virtuoso-conn-3f2a-01"));
        assertEquals("fabric", CpuUsage.role("virtuoso-fabric"));
    }

    @Test
    void differenceOfSnapshotsGroupsVirtuosoThreadsByRoleAndIgnoresOthers() {
        Map<Long, Long> before = Map.of(1L, 1_000_000_000L, 2L, 500_000_000L);
        Map<Long, String> roles = Map.of(1L, "soft", 2L, "conn", 3L, "conn");
        CpuUsage.Snapshot a = new CpuUsage.Snapshot(2_000_000_000L, 100_000_000L, before, roles);
        // thread 3 was born in between: it counts from 0
        CpuUsage.Snapshot b = new CpuUsage.Snapshot(5_000_000_000L, 400_000_000L,
                Map.of(1L, 2_500_000_000L, 2L, 700_000_000L, 3L, 100_000_000L), roles);
        CpuUsage u = a.until(b);
        assertEquals(3.0, u.processSeconds(), 1e-9);
        assertEquals(0.3, u.benchThreadSeconds(), 1e-9);
        assertEquals(1.5, u.virtuosoThreadSeconds().get("soft"), 1e-9);
        assertEquals(0.3, u.virtuosoThreadSeconds().get("conn"), 1e-9);
        assertEquals(1.8, u.virtuosoSeconds(), 1e-9);
        assertEquals("conn 0.300 s, soft 1.500 s", u.rolesText());
        CpuUsage unknown = new CpuUsage.Snapshot(-1, -1, Map.of(), Map.of()).until(b);
        assertEquals(-1, unknown.processSeconds());
        assertEquals(-1, unknown.benchThreadSeconds());
    }

    @Test
    void aBusyVirtuosoThreadShowsUpWithItsCpuTime() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch stop = new CountDownLatch(1);
        Thread busy = new Thread(() -> {
            started.countDown();
            long x = 0;
            while (stop.getCount() > 0) {
                x += System.nanoTime() & 1;
            }
            if (x == 42) {
                System.out.print("");
            }
        }, "virtuoso-testbusy-1");
        busy.setDaemon(true);
        busy.start();
        try {
            started.await(5, TimeUnit.SECONDS);
            CpuUsage.Snapshot a = CpuUsage.Snapshot.now();
            Thread.sleep(200);
            CpuUsage u = a.until(CpuUsage.Snapshot.now());
            Double spent = u.virtuosoThreadSeconds().get("testbusy");
            assertTrue(spent != null && spent > 0.005, "the spinning thread used CPU: " + u);
            assertTrue(u.processSeconds() != 0, "the process clock moved or is unknown (-1): " + u);
        } finally {
            stop.countDown();
            busy.join(5000);
        }
    }
}
