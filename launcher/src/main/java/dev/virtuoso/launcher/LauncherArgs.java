package dev.virtuoso.launcher;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The launcher's own command line: {@code virtuoso [-v|--verbose] [--feature NAME]... [--config
 * PID:KEY=VALUE[,KEY=VALUE...]]... SUBCOMMAND [ARGS...]} or {@code virtuoso help [SUBCOMMAND]}.
 * Everything after the subcommand belongs to it. Immutable.
 *
 * @param subcommand the subcommand, or {@code null} when only help was asked
 * @param args the subcommand's own arguments
 * @param verbose framework diagnostics and stack traces
 * @param extraFeatures features to install in addition to the subcommand's
 * @param configs ConfigAdmin properties by PID, set before any Virtuoso bundle starts (values are
 *     strings; Declarative Services converts them to the components' property types)
 */
public record LauncherArgs(Subcommand subcommand, List<String> args, boolean verbose, List<String> extraFeatures,
        Map<String, Map<String, String>> configs) {

    public LauncherArgs {
        args = List.copyOf(args);
        extraFeatures = List.copyOf(extraFeatures);
        Map<String, Map<String, String>> copy = new LinkedHashMap<>();
        configs.forEach((pid, props) -> copy.put(pid, Map.copyOf(props)));
        configs = java.util.Collections.unmodifiableMap(copy);
    }

    /** @return true if the user asked for the launcher's usage */
    public boolean helpOnly() {
        return subcommand == null;
    }

    /**
     * Parses a command line.
     *
     * @param argv the arguments
     * @return the parsed form
     * @throws UsageException for an unknown option or subcommand, or a missing one
     */
    public static LauncherArgs parse(String[] argv) throws UsageException {
        boolean verbose = false;
        List<String> extra = new ArrayList<>();
        Map<String, Map<String, String>> configs = new LinkedHashMap<>();
        int i = 0;
        for (; i < argv.length && argv[i].startsWith("-"); i++) {
            String a = argv[i];
            switch (a) {
                case "-v", "--verbose" -> verbose = true;
                case "-h", "--help" -> {
                    return new LauncherArgs(null, List.of(), verbose, extra, configs);
                }
                case "--config" -> {
                    if (i + 1 >= argv.length) {
                        throw new UsageException("--config needs PID:KEY=VALUE[,KEY=VALUE...]");
                    }
                    config(argv[++i], configs);
                }
                case "--feature" -> {
                    if (i + 1 >= argv.length || argv[i + 1].isBlank()) {
                        throw new UsageException("--feature needs a feature name");
                    }
                    extra.add(argv[++i]);
                }
                default -> {
                    if (a.startsWith("--feature=") && a.length() > "--feature=".length()) {
                        extra.add(a.substring("--feature=".length()));
                    } else if (a.startsWith("--config=")) {
                        config(a.substring("--config=".length()), configs);
                    } else {
                        throw new UsageException("unknown option " + a);
                    }
                }
            }
        }
        if (i >= argv.length) {
            throw new UsageException("a subcommand is needed");
        }
        String name = argv[i];
        List<String> rest = Arrays.asList(argv).subList(i + 1, argv.length);
        if (name.equals("help")) {
            if (rest.isEmpty()) {
                return new LauncherArgs(null, List.of(), verbose, extra, configs);
            }
            Subcommand s = Subcommand.byName(rest.get(0))
                    .orElseThrow(() -> new UsageException("unknown subcommand '" + rest.get(0) + "'"));
            return new LauncherArgs(s, List.of("--help"), verbose, extra, configs);
        }
        Subcommand s = Subcommand.byName(name).orElseThrow(() -> new UsageException("unknown subcommand '" + name + "'"));
        if (s == Subcommand.SHELL && !rest.isEmpty()) {
            throw new UsageException("shell takes no arguments (got " + String.join(" ", rest) + ")");
        }
        return new LauncherArgs(s, rest, verbose, extra, configs);
    }

    /** Adds {@code PID:KEY=VALUE[,KEY=VALUE...]} to {@code configs} (a later value of a key wins). */
    private static void config(String spec, Map<String, Map<String, String>> configs) throws UsageException {
        int colon = spec.indexOf(':');
        String pid = colon < 0 ? "" : spec.substring(0, colon).trim();
        if (!pid.matches("[A-Za-z0-9_.-]+") || colon == spec.length() - 1) {
            throw new UsageException("--config needs PID:KEY=VALUE[,KEY=VALUE...], got '" + spec + "'");
        }
        Map<String, String> props = configs.computeIfAbsent(pid, k -> new LinkedHashMap<>());
        for (String kv : spec.substring(colon + 1).split(",", -1)) {
            int eq = kv.indexOf('=');
            String key = eq < 0 ? "" : kv.substring(0, eq).trim();
            if (!key.matches("[A-Za-z0-9_.-]+")) {
                throw new UsageException("--config " + pid + ": '" + kv + "' is not KEY=VALUE");
            }
            props.put(key, kv.substring(eq + 1).trim());
        }
    }

    /** @return the launcher's usage text */
    public static String usage() {
        StringBuilder sb = new StringBuilder();
        sb.append("usage: virtuoso [-v|--verbose] [--feature NAME]... [--config PID:KEY=VALUE[,KEY=VALUE...]]..."
                + " SUBCOMMAND [ARGS...]\n");
        sb.append("       virtuoso help [SUBCOMMAND]\n\nsubcommands:\n");
        for (Subcommand s : Subcommand.values()) {
            sb.append(String.format("  %-7s %s%n", s.cliName(), s.summary()));
        }
        sb.append(String.format("  %-7s %s%n", "testbed", "(root; run by the ./virtuoso script) the paper's testbed from"
                + " network namespaces: up N RATE, down, cut I, restore I, rate I RATE, status"));
        sb.append(String.format("  %-7s %s%n", "experiment", "(root; run by the ./virtuoso script) the paper's experiments"
                + " on that testbed (./virtuoso experiment --help)"));
        sb.append("\n--config sets ConfigAdmin properties before the Virtuoso bundles start, e.g."
                + " --config dev.virtuoso.qpmanager:engineInvokeOnPoll=true (README.md, \"Commands\").\n");
        sb.append("`virtuoso SUBCOMMAND --help` shows a subcommand's options.\n");
        return sb.toString();
    }
}
