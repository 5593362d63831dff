package dev.virtuoso.spi.policy;

import java.util.Map;

import dev.virtuoso.util.TypedProperties;

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
     * @throws IllegalArgumentException if present but not a whole number (see {@link TypedProperties})
     */
    public long longProperty(String key, long dflt) {
        return TypedProperties.of(properties).getLong(key, dflt);
    }
}
