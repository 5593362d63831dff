package dev.virtuoso.util;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Reads typed values from a property map (ConfigAdmin properties, service properties, the
 * per-connection properties of connect options). It is the one place where such values are
 * converted: every reader of a {@code String -> Object} map goes through it, so every key accepts
 * the same forms and every bad value fails the same way.
 *
 * <p>Accepted forms: an absent key or {@code null} gives the default; a value of the wanted type is
 * taken as is; a string is trimmed and parsed; an array or collection of exactly one element (as
 * ConfigAdmin may deliver) stands for that element. Numbers must fit the wanted type exactly (no
 * silent truncation). Booleans are {@code true} or {@code false} in any case, nothing else. A bad
 * value throws {@link IllegalArgumentException} whose message names the full key and the value.
 *
 * <p>Immutable; the map is read, never copied, and must not change while a reader reads it.
 */
public final class TypedProperties {
    private final Map<String, ?> map;
    private final String prefix;

    private TypedProperties(Map<String, ?> map, String prefix) {
        this.map = Objects.requireNonNull(map, "map");
        this.prefix = prefix;
    }

    /**
     * @param map the properties; {@code null} reads as empty
     * @return a reader of {@code map}
     */
    public static TypedProperties of(Map<String, ?> map) {
        return new TypedProperties(map == null ? Map.of() : map, "");
    }

    /**
     * @param p prepended to every key this reader is asked for (for {@code policy.<name>} keys)
     * @return a reader of the same map under {@code p}
     */
    public TypedProperties prefixed(String p) {
        return new TypedProperties(map, prefix + Objects.requireNonNull(p, "prefix"));
    }

    /** @return the full key read for {@code key} */
    public String fullKey(String key) {
        return prefix + key;
    }

    /**
     * @param key property name (after the prefix)
     * @return whether the map holds a non-null value for it
     */
    public boolean contains(String key) {
        return map.get(fullKey(key)) != null;
    }

    /**
     * @param key property name (after the prefix)
     * @param dflt value when absent
     * @return the value as a long
     * @throws IllegalArgumentException if present but not a whole number in the range of a long
     */
    public long getLong(String key, long dflt) {
        Object v = value(key);
        return v == null ? dflt : toLong(key, v, Long.MIN_VALUE, Long.MAX_VALUE, "a whole number");
    }

    /**
     * @param key property name (after the prefix)
     * @param dflt value when absent
     * @return the value as an int
     * @throws IllegalArgumentException if present but not a whole number in the range of an int
     */
    public int getInt(String key, int dflt) {
        Object v = value(key);
        return v == null ? dflt
                : (int) toLong(key, v, Integer.MIN_VALUE, Integer.MAX_VALUE, "a whole number in the int range");
    }

    /**
     * @param key property name (after the prefix)
     * @param dflt value when absent
     * @return the value as a double
     * @throws IllegalArgumentException if present but not a finite number
     */
    public double getDouble(String key, double dflt) {
        Object v = value(key);
        if (v == null) {
            return dflt;
        }
        double d;
        if (v instanceof Number n) {
            d = n.doubleValue();
        } else if (v instanceof String s) {
            try {
                d = Double.parseDouble(s.trim());
            } catch (NumberFormatException e) {
                throw bad(key, v, "a number", e);
            }
        } else {
            throw bad(key, v, "a number", null);
        }
        if (!Double.isFinite(d)) {
            throw bad(key, v, "a finite number", null);
        }
        return d;
    }

    /**
     * @param key property name (after the prefix)
     * @param dflt value when absent
     * @return the value as a boolean
     * @throws IllegalArgumentException if present but neither {@code true} nor {@code false}
     */
    public boolean getBoolean(String key, boolean dflt) {
        Object v = value(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        if (v instanceof String s) {
            String t = s.trim();
            if (t.equalsIgnoreCase("true")) {
                return true;
            }
            if (t.equalsIgnoreCase("false")) {
                return false;
            }
        }
        throw bad(key, v, "true or false", null);
    }

    /**
     * @param key property name (after the prefix)
     * @param dflt value when absent or blank
     * @return the value's text, trimmed
     * @throws IllegalArgumentException if present but a collection or array of other than one element
     */
    public String getString(String key, String dflt) {
        Object v = value(key);
        if (v == null) {
            return dflt;
        }
        String s = v.toString().trim();
        return s.isEmpty() ? dflt : s;
    }

    /**
     * @param <E> the enum type
     * @param key property name (after the prefix)
     * @param type the enum class
     * @param dflt value when absent or blank
     * @return the constant whose name matches the value, ignoring case
     * @throws IllegalArgumentException if present but no constant's name
     */
    public <E extends Enum<E>> E getEnum(String key, Class<E> type, E dflt) {
        Object v = value(key);
        if (v == null) {
            return dflt;
        }
        if (type.isInstance(v)) {
            return type.cast(v);
        }
        String s = v.toString().trim();
        if (s.isEmpty()) {
            return dflt;
        }
        for (E e : type.getEnumConstants()) {
            if (e.name().equalsIgnoreCase(s)) {
                return e;
            }
        }
        throw bad(key, v, "one of " + java.util.Arrays.toString(type.getEnumConstants()).toLowerCase(Locale.ROOT),
                null);
    }

    /** The value of {@code key}, single-element containers unwrapped; {@code null} if absent. */
    private Object value(String key) {
        Object v = map.get(fullKey(key));
        if (v instanceof Object[] a) {
            if (a.length != 1) {
                throw bad(key, java.util.Arrays.toString(a), "a single value", null);
            }
            return a[0];
        }
        if (v instanceof Collection<?> c) {
            if (c.size() != 1) {
                throw bad(key, c, "a single value", null);
            }
            return c.iterator().next();
        }
        if (v != null && v.getClass().isArray()) {
            throw bad(key, v, "a single value", null);
        }
        return v;
    }

    private long toLong(String key, Object v, long min, long max, String expected) {
        long l;
        if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
            l = ((Number) v).longValue();
        } else if (v instanceof Number || v instanceof String) {
            BigDecimal d;
            try {
                d = v instanceof String s ? new BigDecimal(s.trim())
                        : v instanceof BigInteger bi ? new BigDecimal(bi) : new BigDecimal(v.toString());
                l = d.longValueExact();
            } catch (NumberFormatException | ArithmeticException e) {
                throw bad(key, v, expected, e);
            }
        } else {
            throw bad(key, v, expected, null);
        }
        if (l < min || l > max) {
            throw bad(key, v, expected, null);
        }
        return l;
    }

    private IllegalArgumentException bad(String key, Object v, String expected, Exception cause) {
        String shown = v instanceof String ? "\"" + v + "\"" : String.valueOf(v);
        return new IllegalArgumentException("property " + fullKey(key) + " must be " + expected + ": " + shown,
                cause);
    }
}
