package dev.virtuoso.policy.binding;

import java.util.Dictionary;

import org.osgi.framework.FrameworkUtil;

import dev.virtuoso.util.TypedProperties;

/**
 * A parsed {@link BindingConfig}.
 *
 * @param pid the configuration's PID (orders {@code *} bindings deterministically)
 * @param connection connection identifier or {@code *}
 * @param loadBalancer policy name, empty for "leave as is"
 * @param congestionAvoidance policy name, empty for "leave as is"
 */
record Binding(String pid, String connection, String loadBalancer, String congestionAvoidance) {
    static final String ANY = "*";

    static Binding parse(String pid, Dictionary<String, ?> props) {
        return new Binding(pid, text(props, "connection", ANY), text(props, "loadBalancer", ""),
                text(props, "congestionAvoidance", ""));
    }

    boolean wildcard() {
        return ANY.equals(connection);
    }

    private static String text(Dictionary<String, ?> props, String key, String dflt) {
        return TypedProperties.of(FrameworkUtil.asMap(props)).getString(key, dflt);
    }
}
