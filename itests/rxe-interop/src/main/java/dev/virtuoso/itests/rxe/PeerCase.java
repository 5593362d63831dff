package dev.virtuoso.itests.rxe;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One interop case of a plan: which perftest test runs, whether the guest is its server or client,
 * and over how many paths (one guest perftest process and one QP of ours per path).
 *
 * <p>Plan line syntax (shared with the guest script): {@code <write|read|send>
 * <guest-server|guest-client> <paths> [mtu=N]}; '#' starts a comment. The MTU option is for the
 * guest's perftest (-m); our side learns the result through perftest's MTU exchange.
 *
 * @param verb the perftest test
 * @param guestServer true if perftest in the guest is the server (we are its client)
 * @param paths number of paths, 1 or 2
 */
public record PeerCase(Verb verb, boolean guestServer, int paths) {

    /** The perftest bandwidth tests. */
    public enum Verb {
        /** ib_write_bw: RDMA WRITE. */
        WRITE,
        /** ib_read_bw: RDMA READ. */
        READ,
        /** ib_send_bw: SEND/RECV. */
        SEND
    }

    /** Validates the path count. */
    public PeerCase {
        if (paths < 1 || paths > 2) {
            throw new IllegalArgumentException("paths must be 1 or 2: " + paths);
        }
    }

    /** @return e.g. {@code write-guest-server-1path}, the label both sides print results under */
    public String label() {
        return verb.name().toLowerCase(Locale.ROOT) + (guestServer ? "-guest-server-" : "-guest-client-")
                + paths + "path";
    }

    /**
     * @param lines plan file lines
     * @return the cases in order
     * @throws IllegalArgumentException on a malformed line
     */
    public static List<PeerCase> parsePlan(List<String> lines) {
        List<PeerCase> cases = new ArrayList<>();
        for (String raw : lines) {
            String line = raw.replaceAll("#.*", "").trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\\s+");
            boolean options = f.length == 3 || (f.length == 4 && f[3].matches("mtu=\\d+"));
            if (!options || !(f[1].equals("guest-server") || f[1].equals("guest-client"))) {
                throw new IllegalArgumentException(
                        "plan line must be '<verb> guest-server|guest-client <paths> [mtu=N]': " + raw);
            }
            cases.add(new PeerCase(Verb.valueOf(f[0].toUpperCase(Locale.ROOT)), f[1].equals("guest-server"),
                    Integer.parseInt(f[2])));
        }
        return cases;
    }
}
