package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;
import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvQPInitAttr;
import com.ibm.disni.verbs.RdmaCm;
import com.ibm.disni.verbs.RdmaCmEvent;
import com.ibm.disni.verbs.RdmaCmId;
import com.ibm.disni.verbs.RdmaConnParam;
import com.ibm.disni.verbs.RdmaEventChannel;

/** TESTS ONLY: DiSNI's RDMA CM interface; the connection logic lives in {@link CmFabric}. */
final class EmuCm extends RdmaCm {
    private final CmFabric fabric;

    EmuCm(CmFabric fabric) {
        this.fabric = fabric;
    }

    @Override
    public RdmaEventChannel createEventChannel() throws IOException {
        return new EmuEventChannel();
    }

    @Override
    public RdmaCmId createId(RdmaEventChannel channel, short ps) throws IOException {
        return new EmuCmId((EmuEventChannel) channel);
    }

    @Override
    public IbvQP createQP(RdmaCmId id, IbvPd pd, IbvQPInitAttr attr) throws IOException {
        return fabric.createQp((EmuCmId) id, (EmuPd) pd, attr);
    }

    @Override
    public void bindAddr(RdmaCmId id, SocketAddress address) throws IOException {
        fabric.bind((EmuCmId) id, address);
    }

    @Override
    public void listen(RdmaCmId id, int backlog) throws IOException {
        fabric.listen((EmuCmId) id);
    }

    @Override
    public void resolveAddr(RdmaCmId id, SocketAddress source, SocketAddress destination, int timeout)
            throws IOException {
        fabric.resolveAddr((EmuCmId) id, destination);
    }

    @Override
    public void resolveRoute(RdmaCmId id, int timeout) throws IOException {
        fabric.resolveRoute((EmuCmId) id);
    }

    @Override
    public RdmaCmEvent getCmEvent(RdmaEventChannel channel, int timeout) throws IOException {
        try {
            return ((EmuEventChannel) channel).events.poll(Math.max(0, timeout), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void connect(RdmaCmId id, RdmaConnParam param) throws IOException {
        fabric.connect((EmuCmId) id, param.getRetry_count(), param.getRnr_retry_count());
    }

    @Override
    public void accept(RdmaCmId id, RdmaConnParam param) throws IOException {
        fabric.accept((EmuCmId) id, param.getRetry_count(), param.getRnr_retry_count());
    }

    @Override
    public int ackCmEvent(RdmaCmEvent event) {
        return 0;
    }

    @Override
    public int disconnect(RdmaCmId id) {
        return fabric.disconnect((EmuCmId) id);
    }

    @Override
    public int destroyEventChannel(RdmaEventChannel channel) {
        channel.close();
        return 0;
    }

    @Override
    public int destroyCmId(RdmaCmId id) throws IOException {
        return fabric.destroy((EmuCmId) id);
    }

    @Override
    public int destroyQP(RdmaCmId id) throws IOException {
        return fabric.destroyQp((EmuCmId) id);
    }

    @Override
    public SocketAddress getSrcAddr(RdmaCmId id) {
        return ((EmuCmId) id).local;
    }

    @Override
    public SocketAddress getDstAddr(RdmaCmId id) {
        return ((EmuCmId) id).remote;
    }

    @Override
    public int destroyEp(RdmaCmId id) throws IOException {
        fabric.destroyQp((EmuCmId) id);
        return fabric.destroy((EmuCmId) id);
    }
}
