package dev.virtuoso.launcher;

import java.util.List;
import java.util.Optional;

/**
 * The launcher's subcommands: which features each one installs and which Gogo function (scope
 * {@value #SCOPE}) of the virtuoso-commands bundle runs it. {@link #SHELL} runs no function: it
 * leaves the interactive Gogo shell in charge until the user exits it.
 */
public enum Subcommand {
    DEMO("demo", "demo", List.of("virtuoso-soft", "virtuoso-policies", "virtuoso-commands"), List.of(),
            "no root, no setup: 2 endpoints over 4 rate-limited in-process paths, MP_WRITE + MP_SEND,"
                    + " a policy swap, every byte verified, summary table, PNG chart in results/"),
    BENCH("bench", "bench", List.of("virtuoso-soft", "virtuoso-disni", "virtuoso-policies", "virtuoso-commands"),
            List.of("virtuoso-ibv"),
            "perftest-style bandwidth test (--lat: latency): run `virtuoso bench [opts]` as server, "
                    + "`virtuoso bench [opts] HOST` as client"),
    SCALE("scale", "scale", List.of("virtuoso-soft", "virtuoso-policies", "virtuoso-commands"), List.of(),
            "many connections between two endpoints in this process: goodput, CPU/GiB, threads, memory and"
                    + " setup cost per connection, beside iperf3 -P N (docs/scale.md)"),
    SHELL("shell", null, List.of("virtuoso", "virtuoso-disni"), List.of("virtuoso-ibv"),
            "interactive Gogo shell with the virtuoso:* commands (type `help`, `exit` to leave)"),
    PATHS("paths", "vnics", List.of("virtuoso-soft", "virtuoso-disni", "virtuoso-commands"),
            List.of("virtuoso-ibv"),
            "list the RDMA devices and vNICs (addresses usable as paths) of every verbs provider");

    /** Gogo scope of the commands the launcher calls. */
    public static final String SCOPE = "virtuoso";

    private final String cliName;
    private final String function;
    private final List<String> features;
    private final List<String> optionalFeatures;
    private final String summary;

    Subcommand(String cliName, String function, List<String> features, List<String> optionalFeatures,
            String summary) {
        this.cliName = cliName;
        this.function = function;
        this.features = features;
        this.optionalFeatures = optionalFeatures;
        this.summary = summary;
    }

    /** @return the name typed after {@code virtuoso} */
    public String cliName() {
        return cliName;
    }

    /** @return the Gogo function in scope {@value #SCOPE}, or {@code null} for the shell */
    public String function() {
        return function;
    }

    /** @return features to install, in order */
    public List<String> features() {
        return features;
    }

    /**
     * @return features installed after {@link #features()} where this JVM can run their bundles: a
     *     bundle whose execution environment (osgi.ee) this JVM does not provide is left out, and
     *     {@code -v} says so (the libibverbs provider needs Java 22)
     */
    public List<String> optionalFeatures() {
        return optionalFeatures;
    }

    /** @return one-line description for the usage text */
    public String summary() {
        return summary;
    }

    /** @param name a typed name @return the subcommand of that name, if any */
    public static Optional<Subcommand> byName(String name) {
        for (Subcommand s : values()) {
            if (s.cliName.equals(name)) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
