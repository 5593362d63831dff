package dev.virtuoso.commands.scale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;

import org.junit.jupiter.api.Test;

class IperfRunTest {
    @Test
    void readsTheReceiversGoodputAndBothSidesCpu() throws IOException {
        String json = """
                {"start": {"test_start": {"num_streams": 8}},
                 "end": {"streams": [],
                  "sum_sent": {"start": 0, "end": 2.0, "seconds": 2.0, "bytes": 1000, "bits_per_second": 9.9e9},
                  "sum_received": {"start": 0, "end": 2.0, "seconds": 2.0, "bytes": 1000, "bits_per_second": 8.0e9},
                  "cpu_utilization_percent": {"host_total": 50.0, "host_user": 1, "host_system": 49,
                    "remote_total": 25.0, "remote_user": 1, "remote_system": 24}}}
                """;
        IperfRun r = IperfRun.parse(json);
        assertEquals(8.0, r.gbits(), 1e-9);
        assertEquals(2.0, r.seconds(), 1e-9);
        assertEquals(1.5, r.cpuSeconds(), 1e-9, "(50% + 25%) x 2 s");
    }

    @Test
    void anErrorIsReported() {
        IOException e = assertThrows(IOException.class,
                () -> IperfRun.parse("{\"start\": {}, \"error\": \"unable to connect to server\"}"));
        assertEquals("iperf3 JSON without end.sum_received: unable to connect to server", e.getMessage());
    }
}
