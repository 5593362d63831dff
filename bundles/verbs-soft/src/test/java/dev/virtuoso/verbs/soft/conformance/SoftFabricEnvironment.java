package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Two soft RNICs on the in-process fabric, hosts {@code a} (10.0.0.1) and {@code b} (10.0.0.2)
 * joined by one unlimited link whose loss rate and up/down state the suite controls. ICRCs are
 * checked on receive.
 */
final class SoftFabricEnvironment implements ConformanceEnvironment {
    private final FabricNetwork network;
    private final FabricLink link;
    private final SoftVerbsProvider provider;
    private final boolean srq;
    private final boolean invokeOnPoll;

    SoftFabricEnvironment() {
        this(true, false);
    }

    /**
     * @param srq whether the RNICs offer SRQs (false: they report {@code max_srq = 0})
     * @param invokeOnPoll whether the CQs' pollers run the devices' duty cycles
     */
    SoftFabricEnvironment(boolean srq, boolean invokeOnPoll) {
        this.srq = srq;
        this.invokeOnPoll = invokeOnPoll;
        network = new FabricNetwork("conformance", 42);
        network.addHost("a", "10.0.0.1");
        network.addHost("b", "10.0.0.2");
        link = network.link("a", "b", LinkSpec.UNLIMITED);
        provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").fabric(network, "a").sharedReceiveQueues(srq)
                        .invokeOnPoll(invokeOnPoll).build(),
                SoftRnicConfig.builder("b").fabric(network, "b").sharedReceiveQueues(srq)
                        .invokeOnPoll(invokeOnPoll).build());
    }

    @Override
    public String name() {
        return (srq ? "soft/fabric" : "soft/fabric/no-srq") + (invokeOnPoll ? "/invoked" : "");
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
        link.configure(link.spec().withLoss(probability));
        return true;
    }

    /** @param spec link properties in the fabric's text form, e.g. {@code reorder=0.05} */
    void configureLink(String spec) {
        link.configure(LinkSpec.parse(spec));
    }

    @Override
    public void vanish(IbvContext b) {
        link.down();
    }

    @Override
    public void restore() {
        link.configure(LinkSpec.UNLIMITED);
        link.up();
    }

    @Override
    public void close() {
        provider.close();
        network.close();
    }
}
