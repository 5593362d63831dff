package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

import dev.virtuoso.commands.cli.CommandError;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchOptionsTest {

    private static BenchOptions parse(String... args) {
        return BenchOptions.from(BenchOptions.SPEC.parse(args));
    }

    @Test
    void serverWithoutHostClientWithHost() {
        BenchOptions server = parse("-q", "4");
        assertFalse(server.client());
        assertEquals(List.of(65536), server.sizes());
        assertEquals(BenchOptions.DEFAULT_PORT, server.port());
        assertEquals(InetAddress.getLoopbackAddress().getClass(), server.defaultLoopbackVnics().get(0).getClass());
        assertEquals("127.0.1.4", server.defaultLoopbackVnics().get(3).getHostAddress());
        BenchOptions client = parse("-q", "2", "--op", "send", "-s", "1M", "-n", "50", "--report_gbits", "localhost");
        assertTrue(client.client());
        assertEquals(BenchOptions.Op.SEND, client.op());
        assertEquals(List.of(1 << 20), client.sizes());
        assertEquals(50, client.iterationsFor(1 << 20));
        assertEquals("127.0.2.2", client.defaultLoopbackVnics().get(1).getHostAddress());
        assertEquals("Gb/sec", client.unit());
        assertEquals(8.0, client.bandwidth(1e9, 1.0), 1e-9);
        assertEquals(1.0, parse().bandwidth(1 << 20, 1.0), 1e-9);
    }

    @Test
    void allSizesFromTwoBytesToEightMiBWithCappedIterations() {
        BenchOptions o = parse("-a", "-n", "1000", "--max-bytes", "64M");
        assertEquals(23, o.sizes().size());
        assertEquals(2, o.sizes().get(0));
        assertEquals(8 << 20, o.maxSize());
        assertEquals(1000, o.iterationsFor(2));
        assertEquals(10, o.iterationsFor(8 << 20));
        assertEquals(64, o.iterationsFor(1 << 20));
    }

    @Test
    void theLatencyTestIsTheClientsSendPingPong() {
        BenchOptions lat = parse("--lat", "-a", "h");
        assertTrue(lat.latency());
        assertEquals(BenchOptions.Op.SEND, lat.op(), "--lat without --op is the SEND test");
        assertTrue(lat.warmupRun().latency(), "its warm-up connection runs the latency test too");
        assertEquals(BenchOptions.Op.SEND, parse("--lat", "--op", "send", "h").op());
        assertEquals(BenchOptions.Op.WRITE, parse("--lat", "--op", "write", "h").op(), "MP_WRITE and a notice");
        assertFalse(parse("h").latency());
        assertEquals(BenchOptions.Op.WRITE, parse("h").op(), "the bandwidth test's default stays write");
        assertTrue(parse("-q", "2").asServerOf(BenchOptions.Op.SEND, List.of(8), true, 4, List.of()).latency());
        assertEquals(4, parse("-q", "2").asServerOf(BenchOptions.Op.SEND, List.of(8), true, 4, List.of()).rxDepth());
        assertEquals(1, lat.rxDepth(), "one receive at a time unless asked");
        assertEquals(16, parse("--lat", "--rx-depth", "16", "h").rxDepth());
        assertEquals(16, parse("--lat", "--rx-depth", "16", "--warmup", "5", "h").warmupRun().rxDepth());
        assertThrows(IllegalArgumentException.class, () -> parse("--lat", "--rx-depth", "0", "h"));
        assertThrows(IllegalArgumentException.class,
                () -> parse("--lat", "--rx-depth", String.valueOf(BenchOptions.MAX_RX_DEPTH + 1), "h"));
        String[][] refused = {
            {"--lat"}, // the server follows the client's HELLO
            {"--rx-depth", "4", "h"}, // an option of the latency test
            {"--lat", "--op", "read", "h"},
            {"--lat", "-t", "4", "h"},
            {"--lat", "--rate", "1g", "h"},
            {"--lat", "--fct", "h"},
            {"--lat", "--report_gbits", "h"},
        };
        for (String[] args : refused) {
            CommandError e = assertThrows(CommandError.class, () -> parse(args), String.join(" ", args));
            assertTrue(e.getMessage().contains("--lat"), e.getMessage());
        }
    }

    @Test
    void providersAreSoftIbvOrDisni() {
        for (String p : new String[] {"soft", "ibv", "disni"}) {
            assertEquals(p, parse("-P", p, "h").provider());
        }
        assertEquals(null, parse("h").provider(), "chosen by the devices present");
        CommandError e = assertThrows(CommandError.class, () -> parse("--provider", "rxe"));
        assertEquals("--provider must be soft, ibv or disni: rxe", e.getMessage());
    }

    @Test
    void rejectsBadCombinations() {
        assertThrows(IllegalArgumentException.class, () -> parse("-a", "-s", "4096"));
        assertThrows(IllegalArgumentException.class, () -> parse("--op", "atomic"));
        assertThrows(IllegalArgumentException.class, () -> parse("-s", "16M"));
        assertThrows(IllegalArgumentException.class, () -> parse("-q", "3", "--vnics", "127.0.0.1,127.0.0.2"));
        assertThrows(IllegalArgumentException.class, () -> parse("--vnics", "not-an-ip"));
        assertThrows(IllegalArgumentException.class, () -> parse("--provider", "rxe"));
        assertThrows(IllegalArgumentException.class, () -> parse("h1", "h2"));
        assertThrows(IllegalArgumentException.class, () -> parse("-n", "0"));
    }

    @Test
    void rateFctWindowRetryAckAndFailoverTimeoutsAreParsedAndChecked() {
        BenchOptions o = parse("-s", "256K", "-n", "10", "--rate", "80m", "--fct", "--window", "512", "--retry", "1",
                "--ack-timeout", "12", "--failover-timeout", "60", "h");
        assertEquals(80_000_000L, o.rateBitsPerSecond());
        assertEquals(60, o.failoverSeconds());
        assertTrue(o.perMessage());
        assertEquals(512, o.windowPackets());
        assertEquals(1, o.retryCount());
        assertEquals(12, o.ackTimeout());
        // 256 KiB at 80 Mbit/s: one message every 26.2144 ms
        assertEquals(0, o.postOffsetNanos(256 << 10, 0));
        assertEquals(262_144_000L, o.postOffsetNanos(256 << 10, 10));
        BenchOptions unpaced = parse("h");
        assertEquals(0, unpaced.rateBitsPerSecond());
        assertEquals(0, unpaced.postOffsetNanos(1 << 20, 1000));
        assertEquals(0, unpaced.windowPackets());
        assertEquals(-1, unpaced.retryCount());
        assertEquals(-1, unpaced.ackTimeout());
        assertEquals(0, unpaced.failoverSeconds(), "ConnectOptions' default");
        assertEquals(1_500_000L, parse("--rate", "1.5m", "h").rateBitsPerSecond());
    }

    @Test
    void warmupRunsTheSameSizesUnmeasuredWithoutPacingOrFiles() {
        assertEquals(0, parse("h").warmup(), "no warm-up by default");
        BenchOptions o = parse("-s", "8M", "-n", "80", "-q", "4", "--rate", "80m", "--fct", "--json-file", "out.json",
                "--cc", "cc-chunkprobe", "--retry", "0", "--warmup", "8", "h");
        assertEquals(8, o.warmup());
        BenchOptions w = o.warmupRun();
        assertEquals(8, w.iterationsFor(8 << 20), "the warm-up's iterations");
        assertEquals(o.sizes(), w.sizes());
        assertEquals(o.paths(), w.paths());
        assertEquals("cc-chunkprobe", w.cc());
        assertEquals(0, w.retryCount());
        assertEquals(0, w.rateBitsPerSecond(), "the warm-up is not paced");
        assertFalse(w.perMessage());
        assertEquals(null, w.jsonFile(), "the warm-up writes no file");
        assertEquals(0, w.warmup(), "no warm-up of the warm-up");
        assertThrows(IllegalArgumentException.class, () -> parse("--warmup", "-1", "h"));
    }

    @Test
    void rejectsBadPacingAndTransportValues() {
        assertThrows(IllegalArgumentException.class, () -> parse("--rate", "fast", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--rate", "0", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--rate", "-5m", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--rate", "2000g", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--rate", "80m"), "the server does not post");
        assertThrows(IllegalArgumentException.class, () -> parse("--fct"), "the server has no message times");
        assertThrows(IllegalArgumentException.class, () -> parse("--fct", "-n", "200000", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--window", "4", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--window", "5000", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--window", "64", "--provider", "disni", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--retry", "8", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--ack-timeout", "0", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--ack-timeout", "32", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--failover-timeout", "0", "h"));
        assertThrows(IllegalArgumentException.class, () -> parse("--failover-timeout", "3601", "h"));
    }

    @Test
    void secretFileIsReadAndBadFilesAreRefusedByName(@TempDir Path dir) throws Exception {
        Path ok = dir.resolve("secret");
        Files.writeString(ok, "0123456789abcdef-bench\n", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(ok, PosixFilePermissions.fromString("rw-------"));
        BenchOptions o = parse("--secret-file", ok.toString(), "localhost");
        assertEquals("0123456789abcdef-bench", new String(o.secret(), StandardCharsets.US_ASCII),
                "the file's bytes without the trailing line end");
        assertEquals(null, parse("localhost").secret(), "no --secret-file: no secret");

        Path open = dir.resolve("world-readable");
        Files.writeString(open, "0123456789abcdef-bench", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("--secret-file", open.toString()));
        assertTrue(e.getMessage().contains("readable by group or others"), e.getMessage());

        Path tooShort = dir.resolve("short");
        Files.writeString(tooShort, "short", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(tooShort, PosixFilePermissions.fromString("rw-------"));
        e = assertThrows(IllegalArgumentException.class, () -> parse("--secret-file", tooShort.toString()));
        assertTrue(e.getMessage().contains("holds 5 bytes"), e.getMessage());

        // a CommandError: the shell prints its message without a Java class name
        e = assertThrows(CommandError.class, () -> parse("--secret-file", dir.resolve("missing").toString()));
        assertTrue(e.getMessage().startsWith("--secret-file"), e.getMessage());
        assertEquals(e.getMessage(), e.toString(), "no exception class in what the shell prints");
    }

    @Test
    void theServerListensOnLoopbackOrItsVnicUnlessToldOtherwise() throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        BenchOptions server = parse("-p", "7000");
        assertEquals(new InetSocketAddress(lo, 7000), server.listenAddress(server.defaultLoopbackVnics()));
        InetAddress vnic = InetAddress.getByName("192.0.2.7");
        assertEquals(new InetSocketAddress(vnic, 7000),
                server.listenAddress(List.of(vnic, InetAddress.getByName("192.0.2.8"))));
        BenchOptions any = parse("-p", "7000", "--bind", "0.0.0.0");
        assertEquals(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 7000), any.listenAddress(List.of(vnic)));
        assertThrows(CommandError.class, () -> parse("--bind", "127.0.0.1", "localhost"));
        assertThrows(IllegalArgumentException.class, () -> parse("--bind", "not-an-ip"));
    }
}
