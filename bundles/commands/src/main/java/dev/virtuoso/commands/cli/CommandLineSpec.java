package dev.virtuoso.commands.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The options of one command, in the style of perftest and getopt: short options ({@code -s 4096},
 * {@code -s4096}, {@code -a}), long options ({@code --op write}, {@code --op=write}, where {@code _}
 * and {@code -} are the same letter, so {@code --report_gbits} and {@code --report-gbits} both
 * work), {@code --} ending options, and positional operands. {@code -h} and {@code --help} are
 * always known. Immutable after building; {@link #parse} is thread-safe.
 */
public final class CommandLineSpec {

    /** One option. */
    record Option(char shortName, String longName, String valueName, String defaultValue, String help) {
        boolean takesValue() {
            return valueName != null;
        }
    }

    private final String command;
    private final String operands;
    private final int minOperands;
    private final int maxOperands;
    private final List<Option> options = new ArrayList<>();
    private final Map<String, Option> byLong = new HashMap<>();
    private final Map<Character, Option> byShort = new HashMap<>();

    /**
     * @param command command name for the usage text
     * @param operands how the operands look in the synopsis, e.g. {@code [HOST]}; empty for none
     * @param minOperands fewest operands
     * @param maxOperands most operands
     */
    public CommandLineSpec(String command, String operands, int minOperands, int maxOperands) {
        this.command = command;
        this.operands = operands;
        this.minOperands = minOperands;
        this.maxOperands = maxOperands;
        flag('h', "help", "show this help");
    }

    /**
     * Adds a flag.
     *
     * @param shortName one letter, or {@code 0} for none
     * @param longName the long name, without dashes
     * @param help one line of help
     * @return this
     */
    public CommandLineSpec flag(char shortName, String longName, String help) {
        return add(new Option(shortName, longName, null, null, help));
    }

    /**
     * Adds an option with a value.
     *
     * @param shortName one letter, or {@code 0} for none
     * @param longName the long name, without dashes
     * @param valueName how the value is shown in the help, e.g. {@code SIZE}
     * @param defaultValue value when absent, or {@code null}
     * @param help one line of help
     * @return this
     */
    public CommandLineSpec option(char shortName, String longName, String valueName, String defaultValue,
            String help) {
        return add(new Option(shortName, longName, valueName, defaultValue, help));
    }

    private CommandLineSpec add(Option o) {
        if (byLong.put(normal(o.longName()), o) != null || (o.shortName() != 0 && byShort.put(o.shortName(), o) != null)) {
            throw new IllegalStateException("option defined twice: " + o.longName());
        }
        options.add(o);
        return this;
    }

    private static String normal(String longName) {
        return longName.replace('_', '-').toLowerCase(Locale.ROOT);
    }

    /**
     * Parses a command line.
     *
     * @param args the arguments after the command name
     * @return the parsed values
     * @throws IllegalArgumentException naming the first problem (unknown option, missing value,
     *     wrong operand count); the launcher turns it into a usage error
     */
    public ParsedArgs parse(String... args) {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> positionals = new ArrayList<>();
        boolean optionsEnded = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (optionsEnded || !a.startsWith("-") || a.equals("-")) {
                positionals.add(a);
                continue;
            }
            if (a.equals("--")) {
                optionsEnded = true;
                continue;
            }
            Option o;
            String inlineValue = null;
            if (a.startsWith("--")) {
                String body = a.substring(2);
                int eq = body.indexOf('=');
                if (eq >= 0) {
                    inlineValue = body.substring(eq + 1);
                    body = body.substring(0, eq);
                }
                o = byLong.get(normal(body));
                if (o == null) {
                    throw new CommandError("unknown option --" + body);
                }
                if (!o.takesValue() && inlineValue != null) {
                    throw new CommandError("option --" + o.longName() + " takes no value");
                }
            } else {
                o = byShort.get(a.charAt(1));
                if (o == null) {
                    throw new CommandError("unknown option -" + a.charAt(1));
                }
                if (a.length() > 2) {
                    if (!o.takesValue()) {
                        throw new CommandError("option -" + o.shortName() + " takes no value (got " + a + ")");
                    }
                    inlineValue = a.substring(2);
                }
            }
            String v;
            if (!o.takesValue()) {
                v = "true";
            } else if (inlineValue != null) {
                v = inlineValue;
            } else if (i + 1 < args.length) {
                v = args[++i];
            } else {
                throw new CommandError("option " + display(o) + " needs a value (" + o.valueName() + ")");
            }
            values.put(o.longName(), v);
        }
        boolean help = values.containsKey("help");
        if (!help && (positionals.size() < minOperands || positionals.size() > maxOperands)) {
            throw new CommandError(positionals.size() > maxOperands
                    ? "unexpected argument '" + positionals.get(maxOperands) + "'"
                    : "missing " + operands);
        }
        Map<String, String> defaults = new HashMap<>();
        for (Option o : options) {
            if (o.defaultValue() != null) {
                defaults.put(o.longName(), o.defaultValue());
            }
        }
        return new ParsedArgs(values, defaults, positionals);
    }

    private static String display(Option o) {
        return o.shortName() != 0 ? "-" + o.shortName() + "/--" + o.longName() : "--" + o.longName();
    }

    /** @return the usage text: synopsis and one line per option */
    public String usage() {
        StringBuilder sb = new StringBuilder("usage: ").append(command).append(" [OPTIONS]");
        if (!operands.isEmpty()) {
            sb.append(' ').append(operands);
        }
        sb.append("\noptions:\n");
        for (Option o : options) {
            String names = (o.shortName() != 0 ? "-" + o.shortName() + ", " : "    ") + "--" + o.longName()
                    + (o.takesValue() ? " " + o.valueName() : "");
            sb.append(String.format("  %-28s %s", names, o.help()));
            if (o.defaultValue() != null) {
                sb.append(" (default ").append(o.defaultValue()).append(')');
            }
            sb.append('\n');
        }
        return sb.toString();
    }
}
