package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.RdmaVerbs;
import com.ibm.disni.verbs.SVCDeregMr;
import com.ibm.disni.verbs.SVCPollCq;
import com.ibm.disni.verbs.SVCPostRecv;
import com.ibm.disni.verbs.SVCPostSend;
import com.ibm.disni.verbs.SVCRegMr;
import com.ibm.disni.verbs.SVCReqNotify;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.VerbsException;

/** TESTS ONLY: DiSNI's verbs interface served by SPI objects (see {@link EmulatedDisni}). */
final class EmuVerbs extends RdmaVerbs {

    @Override
    public IbvPd allocPd(IbvContext context) throws IOException {
        try {
            return new EmuPd(context, ((EmuContext) context).spi.allocPd());
        } catch (VerbsException e) {
            throw EmuObjects.libdisni("allocPd", "ibv_alloc_pd", e);
        }
    }

    @Override
    public IbvCompChannel createCompChannel(IbvContext context) throws IOException {
        try {
            return new EmuCompChannel(context, ((EmuContext) context).spi.createCompChannel());
        } catch (VerbsException e) {
            throw EmuObjects.libdisni("createCompChannel", "ibv_create_comp_channel", e);
        }
    }

    @Override
    public IbvCQ createCQ(IbvContext context, IbvCompChannel channel, int ncqe, int vector) throws IOException {
        if (channel == null) {
            // libdisni 2.1 refuses CQs without a completion channel
            throw new IOException("j2c::createCQ: context or comp_channel null\n");
        }
        try {
            EmuCompChannel ch = (EmuCompChannel) channel;
            return new EmuCq(context, channel, ((EmuContext) context).spi.createCq(ncqe, ch.spi), ncqe);
        } catch (VerbsException e) {
            throw EmuObjects.libdisni("createCQ", "ibv_create_cq", e);
        }
    }

    @Override
    public boolean getCqEvent(IbvCompChannel channel, IbvCQ cq, int timeout) throws IOException {
        try {
            // libdisni returns only whether some CQ of the channel fired
            return ((EmuCompChannel) channel).spi.getCqEvent(Math.max(0, timeout), TimeUnit.MILLISECONDS) != null;
        } catch (VerbsException e) {
            throw EmuObjects.libdisni("getCqEvent", "ibv_get_cq_event", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public SVCRegMr regMr(IbvPd pd, ByteBuffer buffer, int access) {
        return new RegMr((EmuPd) pd, buffer, access);
    }

    @Override
    public SVCRegMr regMr(IbvPd pd, long address, int length, int access) {
        throw new UnsupportedOperationException("the emulation registers ByteBuffers only");
    }

    @Override
    public int queryOdpSupport(IbvContext context) {
        return -1;
    }

    @Override
    public int expPrefetchMr(IbvMr mr, long address, int length) {
        return -1;
    }

    @Override
    public SVCDeregMr deregMr(IbvMr mr) {
        EmuMr m = (EmuMr) mr;
        return new SVCDeregMr() {
            @Override
            public SVCDeregMr execute() {
                m.close();
                m.spi.close();
                return this;
            }

            @Override
            public boolean isValid() {
                return true;
            }

            @Override
            public SVCDeregMr free() {
                return this;
            }
        };
    }

    @Override
    public SVCPostSend postSend(IbvQP qp, List<IbvSendWR> wrs, List<IbvSendWR> bad) {
        return new EmuPostSend((EmuQp) qp, wrs);
    }

    @Override
    public SVCPostRecv postRecv(IbvQP qp, List<IbvRecvWR> wrs, List<IbvRecvWR> bad) {
        return new EmuPostRecv((EmuQp) qp, wrs);
    }

    @Override
    public SVCPollCq pollCQ(IbvCQ cq, IbvWC[] wcs, int ne) {
        return new EmuPollCq((EmuCq) cq, wcs, ne);
    }

    @Override
    public SVCReqNotify reqNotifyCQ(IbvCQ cq, boolean solicitedOnly) {
        EmuCq c = (EmuCq) cq;
        return new SVCReqNotify() {
            @Override
            public SVCReqNotify execute() throws IOException {
                try {
                    c.spi.reqNotifyCq(solicitedOnly);
                } catch (VerbsException e) {
                    throw EmuObjects.libdisni("reqNotifyCQ", "ibv_req_notify_cq", e);
                }
                return this;
            }

            @Override
            public boolean isValid() {
                return true;
            }

            @Override
            public SVCReqNotify free() {
                return this;
            }
        };
    }

    @Override
    public int ackCqEvents(IbvCQ cq, int n) {
        ((EmuCq) cq).spi.ackCqEvents(n);
        return 0;
    }

    @Override
    public int destroyCompChannel(IbvCompChannel channel) {
        channel.close();
        ((EmuCompChannel) channel).spi.close();
        return 0;
    }

    @Override
    public int deallocPd(IbvPd pd) {
        pd.close();
        ((EmuPd) pd).spi.close();
        return 0;
    }

    @Override
    public int destroyCQ(IbvCQ cq) {
        cq.close();
        ((EmuCq) cq).spi.close();
        return 0;
    }

    /** ibv_reg_mr of a buffer's [address, address + capacity), as libdisni registers it. */
    private static final class RegMr extends SVCRegMr {
        private final EmuPd pd;
        private final ByteBuffer buffer;
        private final int access;
        private IbvMr mr;

        RegMr(EmuPd pd, ByteBuffer buffer, int access) {
            this.pd = pd;
            this.buffer = buffer;
            this.access = access;
        }

        @Override
        public SVCRegMr execute() throws IOException {
            int spiAccess = access & IbvAccess.ALL; // DiSNI and libibverbs share the bit values
            try {
                mr = new EmuMr(pd.getContext(), pd.spi.regMr(buffer.duplicate().clear(), spiAccess), access);
            } catch (VerbsException e) {
                throw EmuObjects.libdisni("regMr", "ibv_reg_mr", e);
            }
            return this;
        }

        @Override
        public IbvMr getMr() {
            return mr;
        }

        @Override
        public boolean isValid() {
            return true;
        }

        @Override
        public SVCRegMr free() {
            return this;
        }
    }
}
