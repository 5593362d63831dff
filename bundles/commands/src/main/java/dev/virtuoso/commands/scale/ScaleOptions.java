package dev.virtuoso.commands.scale;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.commands.cli.CommandLineSpec;
import dev.virtuoso.commands.cli.ParsedArgs;

/**
 * Settings of {@code virtuoso scale}: how many connections to open (one run per count, ascending),
 * their paths, the data each moves and the wire. Immutable.
 *
 * @param counts connection counts, one run each, ascending
 * @param paths paths per connection
 * @param bytesPerConnection bytes each connection moves (a multiple of the message size)
 * @param messageSize bytes per MP_SEND
 * @param depth MP_SENDs outstanding per connection (and receives posted)
 * @param wire {@code udp} (the soft RNIC's UDP wire on loopback) or {@code fabric} (in-process)
 * @param udpPort the soft RNIC's RoCEv2 UDP port (UDP wire)
 * @param iperf whether to run {@code iperf3 -P N} after each count
 * @param iperfPort iperf3's TCP port
 * @param csv file to write the results to as CSV, or {@code null}
 * @param slots small-message receive slots per connection end, 0 for the connector's default
 * @param slotBytes bytes per small-message slot, 0 for the API's default
 * @param maxOutstanding MP requests (and receives) outstanding per connection end, 0 for
 *     {@code max(64, 2 x depth)}
 * @param properties policy properties of every connection (e.g. {@code pathmonitor.initialProbeFlows})
 */
public record ScaleOptions(List<Integer> counts, int paths, long bytesPerConnection, int messageSize, int depth,
        String wire, int udpPort, boolean iperf, int iperfPort, String csv, int slots, int slotBytes, int maxOutstanding,
        Map<String, String> properties) {

    /** Most connections one run may open. */
    public static final int MAX_CONNECTIONS = 4096;

    /** The command line of {@code virtuoso scale}. */
    public static final CommandLineSpec SPEC = new CommandLineSpec("virtuoso scale", "", 0, 0)
            .option('c', "connections", "LIST", "1,8,32,128", "connection counts, comma-separated (one run each)")
            .option('q', "paths", "N", "2", "paths per connection (one RC QP per vNIC)")
            .option('b', "bytes", "SIZE", "16M", "bytes each connection moves, verified (K, M, G suffixes)")
            .option('s', "size", "SIZE", "64K", "MP_SEND message size")
            .option('t', "depth", "N", "4", "MP_SENDs outstanding per connection")
            .option((char) 0, "wire", "WIRE", "udp", "udp (soft RNIC over UDP on loopback) or fabric (in-process)")
            .option((char) 0, "udp-port", "PORT", "4791", "soft RNIC RoCEv2 UDP port (udp wire)")
            .flag((char) 0, "no-iperf", "do not run iperf3 -P N beside each count")
            .option((char) 0, "iperf-port", "PORT", "5201", "iperf3 TCP port on loopback")
            .option((char) 0, "csv", "FILE", null, "also write the results as CSV to FILE")
            .option((char) 0, "slots", "N", null, "small-message receive slots per connection end, 3..4096 (default: the API's)")
            .option((char) 0, "slot-bytes", "SIZE", null, "bytes per small-message slot, ConnectOptions.smallMessageSlotBytes"
                    + " (default: the API's, 16K)")
            .option((char) 0, "max-outstanding", "N", null, "MP requests (and receives) outstanding per connection end,"
                    + " ConnectOptions.maxOutstanding (default: max(64, 2 x depth); the API's default is 1024)")
            .option((char) 0, "property", "K=V,...", null, "policy properties of every connection, e.g. "
                    + "pathmonitor.initialProbeFlows=1");

    /**
     * @param a parsed command line (not a help request)
     * @return the options
     * @throws IllegalArgumentException if a value is malformed or inconsistent
     */
    public static ScaleOptions from(ParsedArgs a) {
        List<Integer> counts = new ArrayList<>();
        for (String c : a.value("connections").split(",")) {
            int n;
            try {
                n = Integer.parseInt(c.trim());
            } catch (NumberFormatException e) {
                throw new CommandError("--connections: not a number: '" + c.trim() + "'");
            }
            if (n < 1 || n > MAX_CONNECTIONS) {
                throw new CommandError("--connections: each count is 1.." + MAX_CONNECTIONS + ": " + n);
            }
            counts.add(n);
        }
        counts.sort(null);
        int paths = a.intValue("paths", 1, ConnectOptions.MAX_PATHS);
        int size = (int) a.size("size", 64, 8 << 20);
        long bytes = a.size("bytes", size, 1L << 40);
        if (bytes % size != 0) {
            throw new CommandError("--bytes must be a multiple of --size: " + bytes + " % " + size);
        }
        String wire = a.choice("wire", "udp", "fabric");
        return new ScaleOptions(List.copyOf(counts), paths, bytes, size, a.intValue("depth", 1, 256), wire,
                a.intValue("udp-port", 1, 65535), !a.flag("no-iperf"), a.intValue("iperf-port", 1, 65535),
                a.value("csv"), a.has("slots") ? a.intValue("slots", 3, 4096) : 0,
                a.has("slot-bytes") ? (int) a.size("slot-bytes", ConnectOptions.MIN_SLOT_BYTES, ConnectOptions.MAX_SLOT_BYTES) : 0,
                a.has("max-outstanding") ? a.intValue("max-outstanding", 1, 1 << 16) : 0, properties(a.value("property")));
    }

    private static Map<String, String> properties(String list) {
        Map<String, String> out = new LinkedHashMap<>();
        if (list == null) {
            return Map.of();
        }
        for (String kv : list.split(",")) {
            int eq = kv.indexOf('=');
            if (eq <= 0 || eq == kv.length() - 1) {
                throw new CommandError("--property: KEY=VALUE expected: '" + kv + "'");
            }
            out.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
        }
        return Collections.unmodifiableMap(out);
    }

    /** @return {@link #maxOutstanding()} as the connections get it */
    public int outstandingPerEnd() {
        return maxOutstanding > 0 ? maxOutstanding : Math.max(64, 2 * depth);
    }

    /** @return messages each connection sends */
    public long messages() {
        return bytesPerConnection / messageSize;
    }

    /** @return application buffer bytes of one connection, both ends (send and receive slots) */
    public long applicationBytesPerConnection() {
        return 2L * depth * messageSize;
    }
}
