package dev.virtuoso.verbs.soft.conformance;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;

/**
 * Two soft RNICs on the UDP wire over loopback aliases 127.0.0.11 and 127.0.0.12 (no root needed
 * on Linux), each on a free UDP port. Loss cannot be emulated here (those tests skip); a peer
 * vanishes by closing its context, which closes its socket.
 */
final class SoftUdpEnvironment implements ConformanceEnvironment {
    private final SoftVerbsProvider provider;
    private final boolean invokeOnPoll;

    SoftUdpEnvironment() {
        this(false);
    }

    /** @param invokeOnPoll whether the CQs' pollers run the devices' duty cycles */
    SoftUdpEnvironment(boolean invokeOnPoll) {
        this.invokeOnPoll = invokeOnPoll;
        provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("udpA").addressLiterals("127.0.0.11").udpPort(0).invokeOnPoll(invokeOnPoll).build(),
                SoftRnicConfig.builder("udpB").addressLiterals("127.0.0.12").udpPort(0).invokeOnPoll(invokeOnPoll).build());
    }

    @Override
    public String name() {
        return invokeOnPoll ? "soft/udp/invoked" : "soft/udp";
    }

    @Override
    public IbvContext openA() throws Exception {
        return provider.openDevice("udpA");
    }

    @Override
    public IbvContext openB() throws Exception {
        return provider.openDevice("udpB");
    }

    @Override
    public boolean setLossRate(double probability) {
        return probability == 0;
    }

    @Override
    public void close() {
        provider.close();
    }
}
