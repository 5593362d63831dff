package dev.virtuoso.commands;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.commands.cli.CommandLineSpec;
import dev.virtuoso.commands.cli.ParsedArgs;

/**
 * {@code virtuoso:link list|down|up|rate|set}: the links of the soft RNIC's in-process fabric (the
 * demo's and the shell testbed's), taken down and up or reshaped while traffic runs. A link is
 * named as the fabric names it ({@code 192.0.2.1-198.51.100.1}) or by its number in {@code link list}.
 */
@Component(service = LinkCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=link"})
public class LinkCommand {

    private static final CommandLineSpec SPEC = new CommandLineSpec("link", "list | down|up LINK | rate LINK RATE"
            + " | set LINK KEY=VALUE...", 1, 12);

    private volatile FabricLinks fabric;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setFabric(FabricLinks f) {
        fabric = f;
    }

    void unsetFabric(FabricLinks f) {
        if (fabric == f) {
            fabric = null;
        }
    }

    /**
     * @param args as in the synopsis
     * @throws CommandError if no fabric is running or the arguments are wrong
     */
    public void link(String... args) {
        ParsedArgs a = SPEC.parse(args);
        PrintStream out = System.out;
        if (a.help()) {
            out.print(SPEC.usage());
            return;
        }
        FabricLinks f = fabric;
        if (f == null || !f.running()) {
            throw new CommandError(FabricLinks.NOT_RUNNING);
        }
        List<String> ops = a.positionals();
        String op = ops.get(0);
        if (op.equals("list")) {
            List<String> links = f.links();
            for (int i = 0; i < links.size(); i++) {
                String l = links.get(i);
                Map<String, Long> c = f.counters(l);
                out.printf("%2d %-32s %-4s %-40s delivered %d B, dropped tail %d loss %d down %d%n", i, l,
                        f.isUp(l) ? "up" : "DOWN", f.spec(l), c.getOrDefault("DELIVERED_BYTES", 0L),
                        c.getOrDefault("DROPPED_TAIL", 0L), c.getOrDefault("DROPPED_LOSS", 0L),
                        c.getOrDefault("DROPPED_DOWN", 0L));
            }
            return;
        }
        if (ops.size() < 2) {
            throw new CommandError("link " + op + " needs a LINK");
        }
        String link = resolve(f, ops.get(1));
        switch (op) {
            case "down" -> f.down(link);
            case "up" -> f.up(link);
            case "rate" -> {
                if (ops.size() != 3) {
                    throw new CommandError("expected: link rate LINK RATE (e.g. 100m)");
                }
                f.configure(link, withRate(f.spec(link), ops.get(2)));
            }
            case "set" -> {
                if (ops.size() < 3) {
                    throw new CommandError("expected: link set LINK KEY=VALUE... (e.g. rate=100m loss=0.01)");
                }
                f.configure(link, String.join(" ", ops.subList(2, ops.size())));
            }
            default -> throw new CommandError("link: expected list, down, up, rate or set, got '" + op + "'");
        }
        out.println(link + ": " + (f.isUp(link) ? "up" : "DOWN") + " " + f.spec(link));
    }

    /** Keeps every property of a link but its rate (configure resets what it is not given). */
    static String withRate(String spec, String rate) {
        StringBuilder sb = new StringBuilder("rate=").append(rate);
        for (String word : spec.trim().split("\\s+")) {
            if (!word.isEmpty() && !word.startsWith("rate=")) {
                sb.append(' ').append(word);
            }
        }
        return sb.toString();
    }

    private static String resolve(FabricLinks f, String key) {
        if (key.matches("\\d{1,3}")) {
            List<String> links = f.links();
            int i = Integer.parseInt(key);
            if (i >= links.size()) {
                throw new CommandError("no link " + i + " (there are " + links.size() + ")");
            }
            return links.get(i);
        }
        return key;
    }
}
