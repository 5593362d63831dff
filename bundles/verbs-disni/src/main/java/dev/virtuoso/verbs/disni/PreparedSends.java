package dev.virtuoso.verbs.disni;

import java.io.IOException;
import java.util.LinkedList;
import java.util.List;

import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvSendWR;
import com.ibm.disni.verbs.SVCPostSend;

import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvSge;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * DiSNI's stateful post-send calls of one native QP, prepared once and re-executed.
 *
 * <p>A prepared {@link SVCPostSend} fixes the opcode, the SGE count and the immediate data; its
 * modifiers change wr_id, send flags, remote address, rkey and each SGE's address, length and
 * lkey. So there is one prepared call per (opcode, SGE count), created on first use, and each post
 * only writes the fields into the call's native WR and executes it: nothing is allocated per post.
 * DiSNI 2.1 cannot change immediate data after preparing, so calls for the WITH_IMM opcodes are
 * also keyed by the immediate value in a small cache: a post with an immediate not seen recently
 * prepares a new call (one allocation per message notification, never per chunk).
 *
 * <p>Not thread-safe: the owning QP serialises posts.
 */
final class PreparedSends {
    static final int IMM_CACHE = 16;

    private final IbvQP qp;
    private final int maxSge;
    private final SVCPostSend[][] plain;
    private final SVCPostSend[] immCalls = new SVCPostSend[IMM_CACHE];
    private final int[] immOpcode = new int[IMM_CACHE];
    private final int[] immSges = new int[IMM_CACHE];
    private final int[] immValue = new int[IMM_CACHE];
    private int immClock;
    private long prepared;

    PreparedSends(IbvQP qp, int maxSge) {
        this.qp = qp;
        this.maxSge = maxSge;
        this.plain = new SVCPostSend[Codes.opcodeCount()][maxSge + 1];
    }

    /**
     * Posts one WR through the prepared call for its shape.
     *
     * @param wr the SPI WR (already validated)
     * @param nativeWrId the wr_id given to the NIC
     * @param nativeFlags DiSNI send flags
     * @throws IOException if DiSNI or the NIC refuses
     */
    void post(IbvSendWr wr, long nativeWrId, int nativeFlags) throws IOException {
        IbvWrOpcode op = wr.opcode();
        int n = wr.numSge();
        SVCPostSend call = Codes.hasImm(op) ? immCall(op, n, wr.immData()) : plainCall(op, n);
        SVCPostSend.SendWRMod mod = call.getWrMod(0);
        mod.setWr_id(nativeWrId);
        mod.setSend_flags(nativeFlags);
        if (Codes.isRdma(op)) {
            SVCPostSend.RdmaMod rdma = mod.getRdmaMod();
            rdma.setRemote_addr(wr.remoteAddr());
            rdma.setRkey(wr.rkey());
        }
        for (int i = 0; i < n; i++) {
            IbvSge s = wr.sge(i);
            SVCPostSend.SgeMod sge = mod.getSgeMod(i);
            sge.setAddr(s.addr());
            sge.setLength(s.length());
            sge.setLkey(s.lkey());
        }
        call.execute();
    }

    /** @return how many calls were prepared so far (allocations), for tests and diagnostics */
    long preparedCount() {
        return prepared;
    }

    /** Releases every prepared call's native memory. */
    void free() {
        for (SVCPostSend[] row : plain) {
            for (int i = 0; i < row.length; i++) {
                if (row[i] != null) {
                    row[i].free();
                    row[i] = null;
                }
            }
        }
        for (int i = 0; i < IMM_CACHE; i++) {
            if (immCalls[i] != null) {
                immCalls[i].free();
                immCalls[i] = null;
            }
        }
    }

    private SVCPostSend plainCall(IbvWrOpcode op, int n) throws IOException {
        SVCPostSend c = plain[op.ordinal()][n];
        if (c == null) {
            c = prepare(op, n, 0);
            plain[op.ordinal()][n] = c;
        }
        return c;
    }

    private SVCPostSend immCall(IbvWrOpcode op, int n, int imm) throws IOException {
        for (int i = 0; i < IMM_CACHE; i++) {
            SVCPostSend c = immCalls[i];
            if (c != null && immOpcode[i] == op.ordinal() && immSges[i] == n && immValue[i] == imm) {
                return c;
            }
        }
        int slot = immClock;
        immClock = (immClock + 1) % IMM_CACHE;
        if (immCalls[slot] != null) {
            immCalls[slot].free();
        }
        SVCPostSend c = prepare(op, n, imm);
        immCalls[slot] = c;
        immOpcode[slot] = op.ordinal();
        immSges[slot] = n;
        immValue[slot] = imm;
        return c;
    }

    private SVCPostSend prepare(IbvWrOpcode op, int n, int imm) throws IOException {
        if (n > maxSge) {
            throw new IllegalArgumentException("numSge " + n + " > " + maxSge);
        }
        IbvSendWR wr = new IbvSendWR();
        wr.setOpcode(Codes.wrOpcode(op));
        LinkedList<com.ibm.disni.verbs.IbvSge> sges = new LinkedList<>();
        for (int i = 0; i < n; i++) {
            sges.add(new com.ibm.disni.verbs.IbvSge());
        }
        wr.setSg_list(sges);
        wr.setNum_sge(n);
        wr.setImm_data(WireOrder.toDisni(imm));
        prepared++;
        return qp.postSend(List.of(wr), null);
    }
}
