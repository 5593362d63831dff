package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.verbs.conformance.Rig;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * Two soft RNICs, hosts {@code a} (10.0.0.1) and {@code b} (10.0.0.2) on one unlimited fabric
 * link, each behind a {@link ScriptedWire}, and a conformance {@link Rig} over them (devices open,
 * so both wires exist). The test closes it in its tearDown.
 */
final class ScriptedFabric implements AutoCloseable {
    final Rig rig;
    private final FabricNetwork network;
    private final SoftVerbsProvider provider;
    private volatile ScriptedWire wireA;
    private volatile ScriptedWire wireB;

    ScriptedFabric(String networkName, long networkSeed, long rigSeed) throws Exception {
        this(networkName, networkSeed, rigSeed, false);
    }

    /** @param invokeOnPollA whether device a runs its duty cycles on its CQs' pollers */
    ScriptedFabric(String networkName, long networkSeed, long rigSeed, boolean invokeOnPollA) throws Exception {
        network = new FabricNetwork(networkName, networkSeed);
        network.addHost("a", "10.0.0.1");
        network.addHost("b", "10.0.0.2");
        FabricLink link = network.link("a", "b", LinkSpec.UNLIMITED);
        provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addressLiterals("10.0.0.1").invokeOnPoll(invokeOnPollA)
                        .wire(name -> wireA = new ScriptedWire(network.wire("a"))).build(),
                SoftRnicConfig.builder("b").addressLiterals("10.0.0.2")
                        .wire(name -> wireB = new ScriptedWire(network.wire("b"))).build());
        try {
            rig = new Rig(new TwoHostEnvironment("soft/scripted-fabric", provider, link), rigSeed);
        } catch (Exception | Error e) {
            provider.close();
            network.close();
            throw e;
        }
    }

    /** @return device a */
    SoftRnic deviceA() {
        return provider.device("a");
    }

    /** @return A's wire (created when the rig opened device a) */
    ScriptedWire wireA() {
        return wireA;
    }

    /** @return B's wire (created when the rig opened device b) */
    ScriptedWire wireB() {
        return wireB;
    }

    @Override
    public void close() {
        rig.close();
        provider.close();
        network.close();
    }
}
