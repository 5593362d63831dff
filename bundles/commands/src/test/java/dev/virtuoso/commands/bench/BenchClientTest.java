package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.PathState;
import dev.virtuoso.api.PathStats;

class BenchClientTest {
    private static PathStats path(int id, PathState state, long done, long failed, long resent) throws Exception {
        return new PathStats(id, InetAddress.getByName("10.0.1." + (id + 1)), InetAddress.getByName("10.0.2." + (id + 1)),
                state, 0, done, failed, 0, 0, 0, 0, resent);
    }

    @Test
    void aFailedRequestNamesEveryPathsStateAndFailures() throws Exception {
        assertEquals("paths: 0=UP (12 chunks done, 0 failed, 3 retransmissions)"
                + " 1=RECOVERING (4 chunks done, 36 failed, 1200 retransmissions)",
                BenchClient.pathSummary(List.of(path(0, PathState.UP, 12, 0, 3),
                        path(1, PathState.RECOVERING, 4, 36, 1200))));
    }
}
