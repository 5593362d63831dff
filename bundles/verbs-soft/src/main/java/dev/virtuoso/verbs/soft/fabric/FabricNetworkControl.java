package dev.virtuoso.verbs.soft.fabric;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.virtuoso.verbs.soft.fabric.api.FabricControl;

/** {@link FabricControl} over a {@link FabricNetwork}; made by {@link FabricNetwork#control()}. */
final class FabricNetworkControl implements FabricControl {
    private final FabricNetwork network;

    FabricNetworkControl(FabricNetwork network) {
        this.network = network;
    }

    @Override
    public String name() {
        return network.name();
    }

    @Override
    public List<String> hosts() {
        return network.hosts().stream().map(FabricHost::name).toList();
    }

    @Override
    public List<String> addresses(String host) {
        return network.host(host)
                .orElseThrow(() -> new IllegalArgumentException("no host named '" + host + "' (hosts: "
                        + hosts() + ")"))
                .addresses().stream().map(InetAddress::getHostAddress).toList();
    }

    @Override
    public List<String> links() {
        return network.links().stream().map(FabricLink::name).toList();
    }

    private FabricLink link(String name) {
        int dash = name == null ? -1 : name.indexOf('-');
        if (dash > 0 && dash < name.length() - 1 && name.indexOf('-', dash + 1) < 0) {
            try {
                var found = network.findLink(name.substring(0, dash).trim(), name.substring(dash + 1).trim());
                if (found.isPresent()) {
                    return found.get();
                }
            } catch (IllegalArgumentException e) {
                // an invalid address literal: reported below like any unknown link
            }
        }
        throw new IllegalArgumentException("no link named '" + name + "' (links: " + links() + ")");
    }

    @Override
    public String spec(String link) {
        return link(link).spec().toString();
    }

    @Override
    public void configure(String link, String linkSpec) {
        FabricLink l = link(link);
        l.configure(LinkSpec.parse(linkSpec));
    }

    @Override
    public void down(String link) {
        link(link).down();
    }

    @Override
    public void up(String link) {
        link(link).up();
    }

    @Override
    public boolean isUp(String link) {
        return link(link).isUp();
    }

    @Override
    public Map<String, Long> counters(String link) {
        Map<String, Long> out = new LinkedHashMap<>();
        link(link).snapshot().forEach((k, v) -> out.put(k.name(), v));
        return out;
    }
}
