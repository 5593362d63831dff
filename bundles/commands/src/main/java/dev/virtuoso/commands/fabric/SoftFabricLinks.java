package dev.virtuoso.commands.fabric;

import java.util.List;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.util.tracker.ServiceTracker;

import dev.virtuoso.commands.FabricLinks;
import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.verbs.soft.fabric.api.FabricControl;

/**
 * {@link FabricLinks} over verbs-soft's {@link FabricControl}, the only class of the bundle that
 * names a verbs-soft type. It runs only where the soft provider does (its reference), so without
 * verbs-soft the class is never loaded; the fabric itself comes and goes with the soft provider's
 * configuration and is tracked.
 */
@Component(service = FabricLinks.class)
public class SoftFabricLinks implements FabricLinks {

    /** Only here so this component, and this class, exist only where verbs-soft runs. */
    @Reference(target = "(" + VerbsProvider.PROVIDER_PROPERTY + "=soft)")
    private VerbsProvider soft;

    private ServiceTracker<FabricControl, FabricControl> fabrics;

    @Activate
    void activate(BundleContext context) {
        fabrics = new ServiceTracker<>(context, FabricControl.class, null);
        fabrics.open();
    }

    @Deactivate
    void deactivate() {
        fabrics.close();
    }

    @Override
    public boolean running() {
        return fabrics.getService() != null;
    }

    private FabricControl fabric() {
        FabricControl f = fabrics.getService();
        if (f == null) {
            throw new CommandError(NOT_RUNNING);
        }
        return f;
    }

    @Override
    public List<String> links() {
        return fabric().links();
    }

    @Override
    public Map<String, Long> counters(String link) {
        return fabric().counters(link);
    }

    @Override
    public boolean isUp(String link) {
        return fabric().isUp(link);
    }

    @Override
    public String spec(String link) {
        return fabric().spec(link);
    }

    @Override
    public void down(String link) {
        fabric().down(link);
    }

    @Override
    public void up(String link) {
        fabric().up(link);
    }

    @Override
    public void configure(String link, String spec) {
        fabric().configure(link, spec);
    }
}
