package dev.virtuoso.commands.fabric;

import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.commands.FabricLinks;
import dev.virtuoso.verbs.soft.fabric.api.FabricControl;

/**
 * {@link FabricLinks} over verbs-soft's {@link FabricControl}. The only class of the bundle that
 * names a verbs-soft type: without verbs-soft its reference is never satisfied and the class is
 * never loaded.
 */
@Component(service = FabricLinks.class)
public class SoftFabricLinks implements FabricLinks {

    @Reference
    private FabricControl fabric;

    @Override
    public List<String> links() {
        return fabric.links();
    }

    @Override
    public Map<String, Long> counters(String link) {
        return fabric.counters(link);
    }

    @Override
    public boolean isUp(String link) {
        return fabric.isUp(link);
    }

    @Override
    public String spec(String link) {
        return fabric.spec(link);
    }

    @Override
    public void down(String link) {
        fabric.down(link);
    }

    @Override
    public void up(String link) {
        fabric.up(link);
    }

    @Override
    public void configure(String link, String spec) {
        fabric.configure(link, spec);
    }
}
