package dev.virtuoso.commands.demo;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import dev.virtuoso.commands.cli.CommandError;

/**
 * The demo's emulated network: host {@value #CLIENT} and host {@value #SERVER}, and one
 * rate-limited link per path between vNIC i of each (192.0.2.i and 198.51.100.i, documentation
 * address ranges that exist only inside the in-process fabric). No default link: a packet between
 * two vNICs of different paths has no route, so each path really is its own link.
 *
 * @param ratesBitsPerSecond the rate of each path's link
 * @param delayMicros one-way delay of every link
 */
public record FabricPlan(List<Long> ratesBitsPerSecond, int delayMicros) {

    /** Fabric host (and soft RNIC device) of the sending side. */
    public static final String CLIENT = "A";
    /** Fabric host (and soft RNIC device) of the receiving side. */
    public static final String SERVER = "B";
    /** Most paths the address plan supports. */
    public static final int MAX_PATHS = 16;

    public FabricPlan {
        ratesBitsPerSecond = List.copyOf(ratesBitsPerSecond);
        if (ratesBitsPerSecond.isEmpty() || ratesBitsPerSecond.size() > MAX_PATHS) {
            throw new CommandError("1.." + MAX_PATHS + " paths, not " + ratesBitsPerSecond.size());
        }
    }

    /** @return number of paths */
    public int paths() {
        return ratesBitsPerSecond.size();
    }

    /** @param path 0-based path @return the client's vNIC of that path */
    public InetAddress clientAddress(int path) {
        return address(192, 0, 2, path + 1);
    }

    /** @param path 0-based path @return the server's vNIC of that path */
    public InetAddress serverAddress(int path) {
        return address(198, 51, 100, path + 1);
    }

    /**
     * @param local a vNIC address of either host
     * @return the path it belongs to, or -1
     */
    public int pathOf(InetAddress local) {
        for (int i = 0; i < paths(); i++) {
            if (clientAddress(i).equals(local) || serverAddress(i).equals(local)) {
                return i;
            }
        }
        return -1;
    }

    /** @return the path with the highest rate (the best single path) */
    public int fastestPath() {
        int best = 0;
        for (int i = 1; i < paths(); i++) {
            if (ratesBitsPerSecond.get(i) > ratesBitsPerSecond.get(best)) {
                best = i;
            }
        }
        return best;
    }

    /** @return the sum of the path rates in bit/s */
    public long totalRate() {
        return ratesBitsPerSecond.stream().mapToLong(Long::longValue).sum();
    }

    /** @return the fabric spec for the soft RNIC provider */
    public String spec() {
        StringBuilder sb = new StringBuilder();
        sb.append(CLIENT).append('=').append(addresses(true)).append(' ')
                .append(SERVER).append('=').append(addresses(false)).append('\n');
        for (int i = 0; i < paths(); i++) {
            sb.append(String.format(Locale.ROOT, "link %s-%s rate=%d delay=%dus%n", clientAddress(i).getHostAddress(),
                    serverAddress(i).getHostAddress(), ratesBitsPerSecond.get(i), delayMicros));
        }
        return sb.append("seed 7\n").toString();
    }

    private String addresses(boolean client) {
        List<String> a = new ArrayList<>();
        for (int i = 0; i < paths(); i++) {
            a.add((client ? clientAddress(i) : serverAddress(i)).getHostAddress());
        }
        return String.join(",", a);
    }

    private static InetAddress address(int a, int b, int c, int d) {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always a valid address
        }
    }
}
