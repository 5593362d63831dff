package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;
import java.util.List;

import com.ibm.disni.verbs.IbvRecvWR;
import com.ibm.disni.verbs.SVCPostRecv;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.VerbsException;

/** TESTS ONLY: a prepared ibv_post_recv; frozen when prepared, as in libdisni 2.1. */
final class EmuPostRecv extends SVCPostRecv {
    private final EmuQp qp;
    private final IbvRecvWr[] spi;
    private boolean valid = true;

    EmuPostRecv(EmuQp qp, List<IbvRecvWR> list) {
        this.qp = qp;
        this.spi = new IbvRecvWr[list.size()];
        for (int i = 0; i < spi.length; i++) {
            IbvRecvWR w = list.get(i);
            IbvRecvWr s = new IbvRecvWr(Math.max(1, w.getSg_list().size()));
            s.wrId(w.getWr_id()).numSge(w.getSg_list().size());
            for (int k = 0; k < w.getSg_list().size(); k++) {
                s.sge(k).set(w.getSg_list().get(k).getAddr(), w.getSg_list().get(k).getLength(),
                        w.getSg_list().get(k).getLkey());
            }
            spi[i] = s;
        }
    }

    @Override
    public SVCPostRecv execute() throws IOException {
        if (!valid) {
            throw new IOException("stateful call freed");
        }
        for (IbvRecvWr s : spi) {
            try {
                qp.spi.postRecv(s);
            } catch (VerbsException e) {
                throw EmuObjects.libdisni("post_recv", "ibv_post_recv", e);
            }
        }
        return this;
    }

    @Override
    public boolean isValid() {
        return valid;
    }

    @Override
    public SVCPostRecv free() {
        valid = false;
        return this;
    }

    @Override
    public RecvWRMod getWrMod(int index) {
        long id = spi[index].wrId();
        return () -> id;
    }
}
