package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.SecretFile;
import dev.virtuoso.commands.VnicsCommand;
import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.commands.cli.CommandLineSpec;
import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.cli.Units;

/**
 * Settings of {@code virtuoso bench}, in the spirit of perftest's {@code ib_write_bw}: the server
 * runs without a host, the client with the server's host; both take the same options. Immutable.
 *
 * @param host the server's host (client), or {@code null} (server)
 * @param port bootstrap TCP port
 * @param op the operation
 * @param sizes message sizes to run, ascending
 * @param iterations iterations per size (capped by {@code maxBytes} for large sizes under -a)
 * @param maxBytes with -a, bytes moved per size at most
 * @param paths number of paths (vNICs)
 * @param txDepth MP work requests outstanding
 * @param policy load-balancing policy, or {@code null} for the connector's default
 * @param cc congestion-avoidance policy, or {@code null} for the default
 * @param provider verbs provider ({@code soft}, {@code ibv}, {@code disni}), or {@code null} for automatic
 * @param device device name, or {@code null}
 * @param vnics local vNIC addresses, empty for the default
 * @param udpPort the soft RNIC's RoCEv2 UDP port
 * @param reportGbits report Gbit/s instead of MB/s
 * @param json print JSON instead of the table
 * @param jsonFile also write JSON to this file, or {@code null}
 * @param waitSeconds server: how long to wait for a client
 * @param rateBitsPerSecond client: application-level pacing of the MP posts (message {@code i} is
 *     posted no earlier than {@code i x size x 8 / rate} after the first), 0 for as fast as the
 *     tx depth allows
 * @param perMessage client: also report each message's completion time (post to completion)
 * @param windowPackets soft RNIC: requester window in packets, 0 for the provider's default
 * @param retryCount QP retry count 0..7, or -1 for the connector's default
 * @param ackTimeout QP ACK timeout exponent 1..31 (4.096 us x 2^exp), or -1 for the default
 * @param failoverSeconds how long MP requests wait for a usable path when every path has failed
 *     ({@link dev.virtuoso.api.ConnectOptions#failoverTimeout}), or 0 for its default
 * @param secret bootstrap shared secret read from {@code --secret-file}, or {@code null} for none
 * @param bind server: bootstrap address to listen on, or {@code null} for the default
 *     ({@link #listenAddress})
 * @param warmup client: iterations per size run on a first connection that is not measured (0: none;
 *     its HELLO tells the server, which needs no option for it)
 * @param latency client: a latency test (perftest's {@code ib_send_lat}): MP_SEND ping-pong, or MP_WRITE
 *     and a notice each way ({@link Op#WRITE}), one message outstanding, half of each round trip
 *     reported (its HELLO tells the server)
 * @param rxDepth client, latency test: MP_RECVs each side keeps posted ahead (perftest's
 *     {@code --rx-depth}), 1 to {@link #MAX_RX_DEPTH}; its HELLO tells the server
 */
public record BenchOptions(String host, int port, Op op, List<Integer> sizes, int iterations, long maxBytes, int paths,
        int txDepth, String policy, String cc, String provider, String device, List<InetAddress> vnics, int udpPort,
        boolean reportGbits, boolean json, Path jsonFile, int waitSeconds, long rateBitsPerSecond, boolean perMessage,
        int windowPackets, int retryCount, int ackTimeout, int failoverSeconds, byte[] secret, InetAddress bind,
        int warmup, boolean latency, int rxDepth) {

    /** The measured operation. */
    public enum Op {
        WRITE("RDMA_Write"), READ("RDMA_Read"), SEND("Send");

        private final String title;

        Op(String title) {
            this.title = title;
        }

        /** @return perftest's name of the test */
        public String title() {
            return title;
        }
    }

    /** perftest's default TCP port for the exchange of connection data. */
    public static final int DEFAULT_PORT = 18515;
    /** Largest message size (perftest -a goes up to 8 MiB). */
    public static final int MAX_SIZE = 8 << 20;
    /**
     * Most MP_RECVs the latency test keeps posted ahead: the server's connection allows 64 receives
     * outstanding (ib_send_lat keeps up to 512).
     */
    public static final int MAX_RX_DEPTH = 32;
    /** Highest pacing rate accepted by {@code --rate} (1 Tbit/s). */
    public static final long MAX_RATE = 1_000_000_000_000L;
    /** Most messages {@code --fct} reports (the JSON keeps one number per message). */
    public static final int MAX_FCT_MESSAGES = 100_000;

    /** The command line of {@code virtuoso bench}. */
    public static final CommandLineSpec SPEC = new CommandLineSpec("virtuoso bench", "[HOST]", 0, 1)
            .option('s', "size", "SIZE", "65536", "message size in bytes (K, M suffixes)")
            .option('n', "iters", "N", "1000", "iterations per size")
            .flag('a', "all", "run every size from 2 B to 8 MiB (powers of two)")
            .option((char) 0, "max-bytes", "SIZE", "256M", "with -a: bytes per size at most (caps -n for big sizes)")
            .option('q', "paths", "N", "1",
                    "number of paths (one RC QP per vNIC), at most " + ConnectOptions.MAX_PATHS)
            .option((char) 0, "op", "OP", "write", "write, read or send")
            .option('t', "tx-depth", "N", "16", "MP work requests outstanding")
            .option((char) 0, "policy", "NAME", null, "load-balancing policy, e.g. lb-adaptive (default: connector's)")
            .option((char) 0, "cc", "NAME", null, "congestion-avoidance policy, e.g. cc-fixed (default: connector's);"
                    + " NAME:KEY=VALUE,... also sets its properties, e.g. cc-fixed:chunkBytes=4194304")
            .option('p', "port", "PORT", String.valueOf(DEFAULT_PORT), "bootstrap TCP port")
            .option((char) 0, "wait", "SECS", "300", "server: how long to wait for a client")
            .option('P', "provider", "NAME", null, "verbs provider: soft, ibv (Java 22+) or disni (default: the first of ibv and disni that has a device, else soft)")
            .option('d', "device", "NAME", null, "RDMA device (default: the provider's first; soft: bench)")
            .option((char) 0, "vnics", "LIST", null,
                    "local vNIC addresses, comma-separated (soft default on loopback: server 127.0.1.x, client 127.0.2.x)")
            .option((char) 0, "udp-port", "PORT", "4791", "soft RNIC RoCEv2 UDP port")
            .flag((char) 0, "report_gbits", "report bandwidth in Gbit/s instead of MB/s")
            .flag((char) 0, "json", "print the results as JSON instead of the table")
            .option((char) 0, "json-file", "FILE", null, "also write the results as JSON to FILE (server: its CPU time)")
            .option((char) 0, "rate", "RATE", null,
                    "client: pace the posts to RATE bit/s (k, m, g: x1000), e.g. 80m; default: no pacing")
            .flag((char) 0, "fct", "client: report every message's completion time (post to completion) in the JSON")
            .option((char) 0, "window", "PACKETS", null, "soft RNIC: requester window, 8..4096 packets (default 128)")
            .option((char) 0, "retry", "N", null, "QP retry count 0..7 (default 7)")
            .option((char) 0, "ack-timeout", "EXP", null, "QP ACK timeout 4.096 us x 2^EXP, EXP 1..31 (default 14: 67 ms)")
            .option((char) 0, "failover-timeout", "SECS", null, "how long MP requests wait for a usable path when"
                    + " every path has failed (or is not usable yet), 1..3600 (default 10); longer where the peer may"
                    + " stall, e.g. under emulation")
            .option((char) 0, "secret-file", "FILE", null,
                    "bootstrap shared secret (16..4096 bytes, chmod 600); both sides give the same one")
            .option((char) 0, "bind", "ADDR", null, "server: bootstrap address to listen on (default: 127.0.0.1 "
                    + "for loopback vNICs, else the first vNIC; 0.0.0.0 for every interface)")
            .option((char) 0, "warmup", "N", "0", "client: first run N iterations per size on a connection that is"
                    + " not measured, so the JIT has compiled the data path on both sides; the measured connection's"
                    + " policies start afresh (the server follows the client's HELLO: there the option has no effect)")
            .flag((char) 0, "lat", "client: latency test instead of bandwidth (perftest's ib_send_lat): MP_SEND"
                    + " ping-pong (default), or with --op write an MP_WRITE and, once it completed, a 16-byte MP_SEND"
                    + " notice each way; one message at a time, half of each round trip in microseconds (t_min,"
                    + " t_typical = median, 99% and 99.9% percentiles); the server follows the client's HELLO")
            .option((char) 0, "rx-depth", "N", "1", "client, with --lat: MP_RECVs each side keeps posted ahead, 1.."
                    + MAX_RX_DEPTH + " (perftest's --rx-depth; ib_send_lat keeps up to 512); 1 posts each right before"
                    + " its message, so its advertisement travels with it");

    /**
     * @param a parsed command line (not a help request)
     * @return the options
     * @throws IllegalArgumentException if a value is malformed or inconsistent
     */
    public static BenchOptions from(ParsedArgs a) {
        String host = a.positionals().isEmpty() ? null : a.positionals().get(0);
        boolean latency = a.flag("lat");
        // --lat without --op is the SEND latency test; the bandwidth test's default stays write
        Op op = latency && !a.has("op") ? Op.SEND
                : Op.valueOf(a.choice("op", "write", "read", "send").toUpperCase(Locale.ROOT));
        if (latency) {
            checkLatency(a, host, op);
        } else if (a.has("rx-depth")) {
            throw new CommandError("--rx-depth is an option of the latency test (--lat)");
        }
        List<Integer> sizes = new ArrayList<>();
        if (a.flag("all")) {
            if (a.has("size")) {
                throw new CommandError("-a and -s exclude each other");
            }
            for (int s = 2; s <= MAX_SIZE; s *= 2) {
                sizes.add(s);
            }
        } else {
            sizes.add((int) a.size("size", 1, MAX_SIZE));
        }
        int paths = a.intValue("paths", 1, Integer.MAX_VALUE);
        if (paths > ConnectOptions.MAX_PATHS) {
            throw new CommandError("--paths " + paths + ": a connection has at most "
                    + ConnectOptions.MAX_PATHS + " paths");
        }
        List<InetAddress> vnics = new ArrayList<>();
        if (a.value("vnics") != null) {
            for (String v : a.value("vnics").split(",")) {
                vnics.add(literal(v.trim()));
            }
            if (vnics.size() < paths) {
                throw new CommandError("--vnics lists " + vnics.size() + " addresses for -q " + paths);
            }
            vnics = vnics.subList(0, paths);
        }
        String provider = a.value("provider");
        if (provider != null && !VnicsCommand.KNOWN.contains(provider)) {
            throw new CommandError("--provider must be soft, ibv or disni: " + provider);
        }
        String jsonFile = a.value("json-file");
        long rate = 0;
        if (a.value("rate") != null) {
            if (host == null) {
                throw new CommandError("--rate paces the client's posts: give it to the client (with a HOST)");
            }
            rate = Units.parseRate(a.value("rate"), "--rate");
            if (rate > MAX_RATE) {
                throw new CommandError("--rate must be at most 1000g: " + a.value("rate"));
            }
        }
        int iterations = a.intValue("iters", 1, 100_000_000);
        boolean perMessage = a.flag("fct");
        if (perMessage && (host == null || sizes.size() * (long) iterations > MAX_FCT_MESSAGES)) {
            throw new CommandError("--fct is for the client and at most " + MAX_FCT_MESSAGES
                    + " messages (sizes x -n)");
        }
        byte[] secret = null;
        if (a.value("secret-file") != null) {
            try {
                secret = SecretFile.read(Path.of(a.value("secret-file")));
            } catch (IOException | RuntimeException e) {
                throw new CommandError("--secret-file: " + e.getMessage());
            }
        }
        InetAddress bind = null;
        if (a.value("bind") != null) {
            if (host != null) {
                throw new CommandError("--bind sets the server's listening address: not with a HOST");
            }
            bind = literal(a.value("bind"));
        }
        if (a.has("window") && provider != null && !provider.equals("soft")) {
            throw new CommandError("--window sets the soft RNIC's requester window: not with --provider " + provider);
        }
        return new BenchOptions(host, a.intValue("port", 1, 65535), op, sizes, iterations,
                a.size("max-bytes", 1, 1L << 40), paths, a.intValue("tx-depth", 1, 1024), a.value("policy"),
                a.value("cc"), provider, a.value("device"), List.copyOf(vnics), a.intValue("udp-port", 0, 65535),
                a.flag("report_gbits"), a.flag("json"), jsonFile == null ? null : Path.of(jsonFile),
                a.intValue("wait", 1, 86_400), rate, perMessage,
                a.has("window") ? a.intValue("window", 8, 4096) : 0,
                a.has("retry") ? a.intValue("retry", 0, 7) : -1,
                a.has("ack-timeout") ? a.intValue("ack-timeout", 1, 31) : -1,
                a.has("failover-timeout") ? a.intValue("failover-timeout", 1, 3600) : 0, secret, bind,
                a.intValue("warmup", 0, 100_000_000), latency, a.intValue("rx-depth", 1, MAX_RX_DEPTH));
    }

    /** {@code --lat}: what the latency test takes; options of the bandwidth test are refused, not ignored. */
    private static void checkLatency(ParsedArgs a, String host, Op op) {
        if (host == null) {
            throw new CommandError("--lat is the client's choice (with a HOST): the server follows its HELLO");
        }
        if (op == Op.READ) {
            throw new CommandError("--lat measures MP_SEND, or MP_WRITE and a notice (--op write): --op read is not"
                    + " supported with it");
        }
        for (String bw : List.of("tx-depth", "rate", "fct", "report_gbits")) {
            if (a.has(bw)) {
                throw new CommandError("--" + bw + " is an option of the bandwidth test, not of --lat (one message is"
                        + " outstanding at a time)");
            }
        }
    }

    /**
     * The server's bootstrap address: {@code --bind}, else 127.0.0.1 when every vNIC is a loopback
     * address, else the first vNIC's address. Never every interface unless asked for.
     *
     * @param localVnics vNICs this side uses
     * @return the address to listen on
     */
    public InetSocketAddress listenAddress(List<InetAddress> localVnics) {
        if (bind != null) {
            return new InetSocketAddress(bind, port);
        }
        if (localVnics.isEmpty() || localVnics.stream().allMatch(InetAddress::isLoopbackAddress)) {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        }
        return new InetSocketAddress(localVnics.get(0), port);
    }

    /**
     * @param size a message size
     * @param index a message's number in its run, from 0
     * @return how long after the run's first post message {@code index} may be posted under
     *     {@code --rate} (0 without pacing)
     */
    public long postOffsetNanos(int size, long index) {
        if (rateBitsPerSecond == 0) {
            return 0;
        }
        return (long) (index * (size * 8.0 * 1e9 / rateBitsPerSecond));
    }

    /**
     * The server's view: the client's operation and sizes, this side's other settings.
     *
     * @param clientOp operation the client announced
     * @param clientSizes sizes the client announced
     * @param clientLatency whether the client runs the latency test
     * @param clientRxDepth the receive depth of the client's latency test
     * @param localVnics vNICs this side uses
     * @return the options to show in the server's header
     */
    BenchOptions asServerOf(Op clientOp, List<Integer> clientSizes, boolean clientLatency, int clientRxDepth,
            List<InetAddress> localVnics) {
        return new BenchOptions(null, port, clientOp, clientSizes, iterations, maxBytes, localVnics.size(), txDepth, policy,
                cc, provider, device, localVnics, udpPort, reportGbits, json, jsonFile, waitSeconds, 0, false,
                windowPackets, retryCount, ackTimeout, failoverSeconds, secret, bind, warmup, clientLatency,
                clientRxDepth);
    }

    /** @return the client's warm-up run: {@link #warmup} iterations per size, nothing reported, no pacing */
    BenchOptions warmupRun() {
        return new BenchOptions(host, port, op, sizes, warmup, maxBytes, paths, txDepth, policy, cc, provider, device,
                vnics, udpPort, reportGbits, json, null, waitSeconds, 0, false, windowPackets, retryCount, ackTimeout,
                failoverSeconds, secret, bind, 0, latency, rxDepth);
    }

    /** @return true on the client side (a host was given) */
    public boolean client() {
        return host != null;
    }

    /** @return the largest size */
    public int maxSize() {
        return sizes.get(sizes.size() - 1);
    }

    /**
     * @param size a message size
     * @return iterations for it: {@link #iterations}, capped by {@link #maxBytes} under -a (at least 10)
     */
    public int iterationsFor(int size) {
        if (sizes.size() == 1) {
            return iterations;
        }
        return (int) Math.max(Math.min(10, iterations), Math.min(iterations, maxBytes / size));
    }

    /**
     * The soft RNIC's default vNICs on loopback: server 127.0.1.1.., client 127.0.2.1.. (different
     * addresses, so both fit on one host with the same UDP port).
     *
     * @return the addresses
     */
    public List<InetAddress> defaultLoopbackVnics() {
        List<InetAddress> out = new ArrayList<>();
        for (int i = 1; i <= paths; i++) {
            out.add(literal("127.0." + (client() ? 2 : 1) + "." + i));
        }
        return out;
    }

    /** @param total bytes @param seconds time @return bandwidth in the report's unit */
    public double bandwidth(double total, double seconds) {
        return seconds <= 0 ? 0 : reportGbits ? total * 8 / seconds / 1e9 : total / seconds / (1 << 20);
    }

    /** @return the bandwidth unit of the table */
    public String unit() {
        return reportGbits ? "Gb/sec" : "MB/sec";
    }

    private static InetAddress literal(String s) {
        if (!s.matches("[0-9a-fA-F:.]+") || s.isEmpty()) {
            throw new CommandError("not an IP address literal: '" + s + "'");
        }
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new CommandError("not an IP address: '" + s + "' (" + e.getMessage() + ")");
        }
    }
}
