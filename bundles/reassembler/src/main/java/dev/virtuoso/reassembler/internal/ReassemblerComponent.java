package dev.virtuoso.reassembler.internal;

import java.nio.ByteBuffer;

import org.osgi.service.component.annotations.Component;

import dev.virtuoso.reassembler.Reassembler;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The reassembler service: allocates each connection's slot memory and SRQ, or per-QP slot sets on
 * a device that has no SRQ.
 */
@Component(service = Reassembler.class)
public final class ReassemblerComponent implements Reassembler {

    @Override
    public Reassembly newReassembly(ReassemblyConfig config, IbvPd pd) throws VerbsException {
        DefaultReassembly.check(config);
        Notices notices = notices(config, pd);
        ByteBuffer slab = ByteBuffer.allocateDirect(Math.multiplyExact(config.slots(), config.slotBytes()));
        IbvMr mr;
        IbvSrq srq;
        try {
            mr = pd.regMr(slab, IbvAccess.LOCAL_WRITE);
        } catch (VerbsException | RuntimeException e) {
            notices.close();
            throw e;
        }
        try {
            srq = pd.createSrq(config.slots(), 1);
        } catch (VerbsException | RuntimeException e) {
            mr.close();
            notices.close();
            throw e;
        }
        DefaultReassembly r = new DefaultReassembly(config, srq, mr, slab, notices);
        try {
            r.postSrqSlots();
        } catch (VerbsException | RuntimeException e) {
            r.close();
            throw e;
        }
        return r;
    }

    /**
     * One payload entry per MP_RECV the peer may have waiting (placement notices never wait for an
     * entry long) and the control message buffer.
     */
    private static Notices notices(ReassemblyConfig config, IbvPd pd) throws VerbsException {
        ByteBuffer payload = ByteBuffer.allocateDirect(Notices.regionBytes(config.maxReceives()));
        return new Notices(pd.regMr(payload, IbvAccess.LOCAL_WRITE), payload, config.maxReceives());
    }

    @Override
    public Reassembly newReassembly(ReassemblyConfig config, IbvPd pd, IbvDeviceAttr device) throws VerbsException {
        if (device.maxSrq() != 0) {
            return newReassembly(config, pd);
        }
        DefaultReassembly.check(config);
        return new DefaultReassembly(config, new SlotSets(pd, config.slots(), config.slotBytes(), config.wrIdTag()),
                notices(config, pd));
    }
}
