package dev.virtuoso.spi.policy;

import java.util.Map;

/**
 * What a policy learns about the connection it serves when a session is created.
 *
 * @param connectionId the connection's identifier (for logs and metrics)
 * @param properties policy configuration (from connect options or ConfigAdmin); never {@code null}
 */
public record PolicyContext(String connectionId, Map<String, Object> properties) {
    public PolicyContext {
        properties = Map.copyOf(properties);
    }

    /**
     * @param key property name
     * @param dflt value when absent
     * @return the property as a long
     * @throws IllegalArgumentException if present but not a number
     */
    public long longProperty(String key, long dflt) {
        Object v = properties.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Number n) {
            return n.longValue();
        }
        try {
            return Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("policy property " + key + " is not a number: " + v, e);
        }
    }
}
