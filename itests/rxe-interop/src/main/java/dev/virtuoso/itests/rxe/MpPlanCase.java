package dev.virtuoso.itests.rxe;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One line of a multipath plan, the same file for the guest and the host:
 * <pre>
 * LABEL guest-client|guest-server PATHS [lb=NAME] [cc=NAME] [cut=PATH]
 * </pre>
 * {@code cut=k}: while the transfer runs, the guest removes its address of path k (ip addr del) and
 * puts it back after the case.
 *
 * @param label case name in the result lines
 * @param guestClient whether the guest connects (else it listens)
 * @param paths number of paths (one address pair each)
 * @param loadBalancer load-balancing policy name
 * @param congestionAvoidance congestion-avoidance policy name
 * @param cutPath the path whose guest address is removed mid-transfer, or -1
 */
public record MpPlanCase(String label, boolean guestClient, int paths, String loadBalancer,
        String congestionAvoidance, int cutPath) {

    /** @return the cases of a plan file's lines ('#' comments and blank lines skipped) */
    public static List<MpPlanCase> parse(List<String> lines) {
        List<MpPlanCase> out = new ArrayList<>();
        for (String raw : lines) {
            String line = raw.replaceAll("#.*", "").trim();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\\s+");
            if (f.length < 3 || !(f[1].equals("guest-client") || f[1].equals("guest-server"))) {
                throw new IllegalArgumentException("bad plan line: " + raw);
            }
            Map<String, String> opt = new HashMap<>();
            for (int i = 3; i < f.length; i++) {
                String[] kv = f[i].split("=", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("bad option '" + f[i] + "' in: " + raw);
                }
                opt.put(kv[0], kv[1]);
            }
            int paths = Integer.parseInt(f[2]);
            int cut = Integer.parseInt(opt.getOrDefault("cut", "-1"));
            if (paths < 1 || cut >= paths || (cut >= 0 && paths < 2)) {
                throw new IllegalArgumentException("paths >= 1, cut < paths and only with 2+ paths: " + raw);
            }
            out.add(new MpPlanCase(f[0], f[1].equals("guest-client"), paths,
                    opt.getOrDefault("lb", "builtin-roundrobin"), opt.getOrDefault("cc", "builtin-fixed"), cut));
        }
        return out;
    }
}
