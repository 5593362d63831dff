package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;
import java.net.InetSocketAddress;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaCmId;

/** TESTS ONLY: an rdma_cm_id of the emulation. State is guarded by the {@link CmFabric}. */
final class EmuCmId extends RdmaCmId {
    enum State {
        IDLE, BOUND, LISTENING, ADDR_RESOLVED, ROUTE_RESOLVED, CONNECTING, REQUEST_RECEIVED, CONNECTED,
        DISCONNECTED, DESTROYED
    }

    final EmuEventChannel channel;
    State state = State.IDLE;
    InetSocketAddress local;
    InetSocketAddress remote;
    EmuCmId peer;
    EmulatedDisni.EmuDevice device;
    int retry;
    int rnrRetry;

    EmuCmId(EmuEventChannel channel) throws IOException {
        super(channel, null);
        this.channel = channel;
    }

    void device(EmulatedDisni.EmuDevice d) {
        device = d;
        setVerbs(d == null ? null : d.context());
    }

    void qp(IbvQP qp) {
        setQp(qp);
    }

    @Override
    public IbvContext getVerbs() throws IOException {
        return verbs;
    }

    @Override
    public String toString() {
        return "EmuCmId[" + state + " " + local + " -> " + remote + "]";
    }
}
