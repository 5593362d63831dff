package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * One connection's verbs resources: its own protection domain and shared completion queue, on the
 * device context its engine agent shares among its connections (so every CQ of the agent reports
 * on one completion channel). Closing releases the PD (with every QP, SRQ and region still in it)
 * and the CQ, then the connection's reference to the shared device.
 */
final class VerbsResources implements AutoCloseable {
    final IbvContext context;
    final IbvPd pd;
    final IbvCq cq;
    /** The device's capabilities: what the connection may use (e.g. SRQs) is decided from them. */
    final IbvDeviceAttr device;
    private final EngineAgent agent;
    private final SharedDevice shared;
    private boolean closed;

    private VerbsResources(EngineAgent agent, SharedDevice shared, IbvPd pd, IbvCq cq) {
        this.agent = agent;
        this.shared = shared;
        this.context = shared.context;
        this.device = shared.attributes;
        this.pd = pd;
        this.cq = cq;
    }

    /**
     * @param agent the engine agent that will serve the connection (its device context is used)
     * @param cqEntries the CQ size for the device's capabilities
     */
    static VerbsResources open(EngineAgent agent, VerbsProvider provider, String device,
            ToIntFunction<IbvDeviceAttr> cqEntries) throws VirtuosoException {
        SharedDevice shared = agent.acquireDevice(provider, device);
        IbvPd pd = null;
        try {
            pd = shared.context.allocPd();
            IbvCq cq = shared.context.createCq(cqEntries.applyAsInt(shared.attributes), shared.channel);
            return new VerbsResources(agent, shared, pd, cq);
        } catch (VerbsException | RuntimeException e) {
            if (pd != null) {
                pd.close();
            }
            agent.releaseDevice(shared);
            throw new VirtuosoException(Reason.VERBS, "cannot allocate PD/CQ: " + e.getMessage(), e);
        }
    }

    /** The agent's probe source on this device (register it without write access). */
    ByteBuffer probeSource() {
        return shared.probeSource;
    }

    /** The agent's probe target on this device (what a connection advertises as its scratch region). */
    ByteBuffer probeTarget() {
        return shared.probeTarget;
    }

    /** Completion events of this CQ wake {@code engine} from now on. */
    void listen(ConnectionEngine engine) {
        shared.listen(cq, engine);
    }

    /** @return the vNIC with this address, or {@code null} */
    Vnic vnic(InetAddress address) {
        for (Vnic v : context.vnics()) {
            if (v.address().equals(address)) {
                return v;
            }
        }
        return null;
    }

    List<InetAddress> addresses() {
        List<InetAddress> out = new ArrayList<>();
        for (Vnic v : context.vnics()) {
            out.add(v.address());
        }
        return out;
    }

    /** Idempotent; the PD goes first so its QPs flush into a CQ that still exists. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        shared.forget(cq);
        pd.close();
        cq.close();
        agent.releaseDevice(shared);
    }
}
