package dev.virtuoso.commands.cli;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Values of a parsed command line: options by long name (explicit values over defaults) and the
 * operands. Typed getters throw {@link IllegalArgumentException} naming the option when a value
 * does not parse. Immutable.
 */
public final class ParsedArgs {
    private final Map<String, String> values;
    private final Map<String, String> defaults;
    private final List<String> positionals;

    ParsedArgs(Map<String, String> values, Map<String, String> defaults, List<String> positionals) {
        this.values = Map.copyOf(values);
        this.defaults = Map.copyOf(defaults);
        this.positionals = List.copyOf(positionals);
    }

    /** @return true if {@code -h}/{@code --help} was given */
    public boolean help() {
        return values.containsKey("help");
    }

    /** @param name long name @return true if the flag or option was given explicitly */
    public boolean has(String name) {
        return values.containsKey(name);
    }

    /** @param name a flag's long name @return whether it was given */
    public boolean flag(String name) {
        return values.containsKey(name);
    }

    /** @param name long name @return the value given, else the default, else {@code null} */
    public String value(String name) {
        String v = values.get(name);
        return v != null ? v : defaults.get(name);
    }

    /**
     * @param name long name
     * @param min smallest allowed value
     * @param max largest allowed value
     * @return the value as an int
     * @throws IllegalArgumentException if absent, not an integer or out of range
     */
    public int intValue(String name, int min, int max) {
        long v = Units.parseCount(required(name), "--" + name);
        if (v < min || v > max) {
            throw new CommandError("--" + name + " must be " + min + ".." + max + ": " + v);
        }
        return (int) v;
    }

    /**
     * @param name long name of a size option ({@code 4096}, {@code 64K}, {@code 8MiB}, {@code 1G})
     * @param min smallest allowed size
     * @param max largest allowed size
     * @return the size in bytes
     * @throws IllegalArgumentException if absent, malformed or out of range
     */
    public long size(String name, long min, long max) {
        long v = Units.parseSize(required(name), "--" + name);
        if (v < min || v > max) {
            throw new CommandError("--" + name + " must be " + Units.bytes(min) + ".." + Units.bytes(max)
                    + ": " + required(name));
        }
        return v;
    }

    /**
     * @param name long name
     * @param allowed the allowed values (lower case)
     * @return the value, lower-cased
     * @throws IllegalArgumentException if absent or not allowed
     */
    public String choice(String name, String... allowed) {
        String v = required(name).toLowerCase(Locale.ROOT);
        for (String a : allowed) {
            if (a.equals(v)) {
                return v;
            }
        }
        throw new CommandError("--" + name + " must be one of " + String.join(", ", allowed) + ": " + v);
    }

    private String required(String name) {
        String v = value(name);
        if (v == null || v.isBlank()) {
            throw new CommandError("--" + name + " needs a value");
        }
        return v.trim();
    }

    /** @return the operands in order */
    public List<String> positionals() {
        return positionals;
    }
}
