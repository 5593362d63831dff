package dev.virtuoso.launcher;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.Hashtable;
import java.util.Map;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.ServiceReference;

/**
 * Applies the launcher's {@code --config} properties through Configuration Admin as soon as its
 * bundle has started, so the Virtuoso components, started after it, activate with them. The
 * launcher sits outside the framework and shares no {@code org.osgi.service.cm} class with it, so
 * the service is called through the interface its own bundle loads.
 */
final class LauncherConfigs implements EmbeddedFramework.BundleStarted {
    static final String CONFIG_ADMIN_BUNDLE = "org.apache.felix.configadmin";
    private static final String CONFIG_ADMIN = "org.osgi.service.cm.ConfigurationAdmin";

    private final Map<String, Map<String, String>> configs;
    private boolean applied;

    LauncherConfigs(Map<String, Map<String, String>> configs) {
        this.configs = configs;
    }

    @Override
    public void started(Bundle bundle) throws BundleException {
        if (configs.isEmpty() || applied || !CONFIG_ADMIN_BUNDLE.equals(bundle.getSymbolicName())) {
            return;
        }
        ServiceReference<?> ref = bundle.getBundleContext().getServiceReference(CONFIG_ADMIN);
        if (ref == null) {
            throw new BundleException("--config: Configuration Admin started without its service");
        }
        Object ca = bundle.getBundleContext().getService(ref);
        try {
            Class<?> api = ref.getBundle().loadClass(CONFIG_ADMIN);
            Method getConfiguration = api.getMethod("getConfiguration", String.class, String.class);
            Class<?> configurationApi = ref.getBundle().loadClass("org.osgi.service.cm.Configuration");
            Method getProperties = configurationApi.getMethod("getProperties");
            Method update = configurationApi.getMethod("update", Dictionary.class);
            for (Map.Entry<String, Map<String, String>> e : configs.entrySet()) {
                Object configuration = getConfiguration.invoke(ca, e.getKey(), "?");
                @SuppressWarnings("unchecked")
                Dictionary<String, Object> old = (Dictionary<String, Object>) getProperties.invoke(configuration);
                Hashtable<String, Object> props = new Hashtable<>();
                if (old != null) {
                    for (Enumeration<String> keys = old.keys(); keys.hasMoreElements();) {
                        String k = keys.nextElement();
                        props.put(k, old.get(k));
                    }
                }
                props.putAll(e.getValue());
                update.invoke(configuration, props);
            }
            applied = true;
        } catch (ClassNotFoundException | NoSuchMethodException | IllegalAccessException e) {
            throw new BundleException("--config: cannot call Configuration Admin: " + e, e);
        } catch (InvocationTargetException e) {
            throw new BundleException("--config: Configuration Admin refused it: " + e.getCause(), e.getCause());
        } finally {
            bundle.getBundleContext().ungetService(ref);
        }
    }

    /** @return whether the configurations were given to Configuration Admin */
    boolean applied() {
        return applied;
    }
}
