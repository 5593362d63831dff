package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;

/**
 * Devices {@code a} and {@code b} of a soft provider for the conformance rig. With a link, loss,
 * vanish and restore act on it; without one, loss cannot be set and vanish and restore are the
 * interface's defaults. The test closes provider and network.
 */
final class TwoHostEnvironment implements ConformanceEnvironment {
    private final String name;
    private final SoftVerbsProvider provider;
    private final FabricLink link;

    /** @param link the a-b link the fault controls act on, or null for none */
    TwoHostEnvironment(String name, SoftVerbsProvider provider, FabricLink link) {
        this.name = name;
        this.provider = provider;
        this.link = link;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public IbvContext openA() throws Exception {
        return provider.openDevice("a");
    }

    @Override
    public IbvContext openB() throws Exception {
        return provider.openDevice("b");
    }

    @Override
    public boolean setLossRate(double probability) {
        if (link == null) {
            return false;
        }
        link.configure(link.spec().withLoss(probability));
        return true;
    }

    @Override
    public void vanish(IbvContext b) {
        if (link == null) {
            ConformanceEnvironment.super.vanish(b);
        } else {
            link.down();
        }
    }

    @Override
    public void restore() {
        if (link == null) {
            ConformanceEnvironment.super.restore();
        } else {
            link.up();
        }
    }

    @Override
    public void close() {
        // the test's tearDown closes provider and network
    }
}
