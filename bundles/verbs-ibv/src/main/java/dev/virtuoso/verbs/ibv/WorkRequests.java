package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvSge;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/** Native work requests allocated once per queue and refilled for every post. */
final class WorkRequests {
    private static final long SGE_SIZE = Structs.SGE.byteSize();

    private WorkRequests() {
    }

    /** enum ibv_wr_opcode of an SPI opcode (the SPI lists them in the same order, stated here explicitly). */
    static int opcode(IbvWrOpcode op) {
        return switch (op) {
            case RDMA_WRITE -> 0;
            case RDMA_WRITE_WITH_IMM -> 1;
            case SEND -> 2;
            case SEND_WITH_IMM -> 3;
            case RDMA_READ -> 4;
        };
    }

    /** A native WR (send or receive) with its SGE array and the bad_wr out-pointer. */
    abstract static class Prepared {
        final MemorySegment wr;
        final MemorySegment badWr;
        private final MemorySegment sges;
        private final int maxSge;

        Prepared(Arena arena, StructLayout layout, int maxSge) {
            this.maxSge = maxSge;
            wr = arena.allocate(layout);
            sges = arena.allocate(Structs.SGE, maxSge);
            badWr = arena.allocate(ADDRESS);
            wr.set(ADDRESS, Structs.offset(layout, "sg_list"), sges);
            wr.set(ADDRESS, Structs.offset(layout, "next"), MemorySegment.NULL);
        }

        final void checkSges(int n) throws VerbsException {
            if (n > maxSge) {
                throw new VerbsException(VerbsException.EINVAL,
                        n + " SGEs exceed the " + maxSge + " the queue was created with");
            }
        }

        final void putSge(int i, IbvSge s) {
            long base = i * SGE_SIZE;
            sges.set(JAVA_LONG, base, s.addr());
            sges.set(JAVA_INT, base + 8, s.length());
            sges.set(JAVA_INT, base + 12, s.lkey());
        }
    }

    /** A send WR with its SGE array and the bad_wr out-pointer. */
    static final class Send extends Prepared {
        private static final long WR_ID = Structs.offset(Structs.SEND_WR, "wr_id");
        private static final long NUM_SGE = Structs.offset(Structs.SEND_WR, "num_sge");
        private static final long OPCODE = Structs.offset(Structs.SEND_WR, "opcode");
        private static final long FLAGS = Structs.offset(Structs.SEND_WR, "send_flags");
        private static final long IMM = Structs.offset(Structs.SEND_WR, "imm_data");
        private static final long REMOTE_ADDR = Structs.offset(Structs.SEND_WR, "wr", "rdma", "remote_addr");
        private static final long RKEY = Structs.offset(Structs.SEND_WR, "wr", "rdma", "rkey");

        Send(Arena arena, int maxSge) {
            super(arena, Structs.SEND_WR, maxSge);
        }

        void fill(IbvSendWr w) throws VerbsException {
            checkSges(w.numSge());
            for (int i = 0; i < w.numSge(); i++) {
                putSge(i, w.sge(i));
            }
            wr.set(JAVA_LONG, WR_ID, w.wrId());
            wr.set(JAVA_INT, NUM_SGE, w.numSge());
            wr.set(JAVA_INT, OPCODE, opcode(w.opcode()));
            wr.set(JAVA_INT, FLAGS, w.sendFlags());
            // imm_data is __be32: the SPI's value goes on the wire as written
            wr.set(JAVA_INT, IMM, Integer.reverseBytes(w.immData()));
            wr.set(JAVA_LONG, REMOTE_ADDR, w.remoteAddr());
            wr.set(JAVA_INT, RKEY, w.rkey());
        }
    }

    /** A receive WR with its SGE array and the bad_wr out-pointer (QP and SRQ alike). */
    static final class Recv extends Prepared {
        private static final long WR_ID = Structs.offset(Structs.RECV_WR, "wr_id");
        private static final long NUM_SGE = Structs.offset(Structs.RECV_WR, "num_sge");

        Recv(Arena arena, int maxSge) {
            super(arena, Structs.RECV_WR, maxSge);
        }

        void fill(IbvRecvWr w) throws VerbsException {
            checkSges(w.numSge());
            for (int i = 0; i < w.numSge(); i++) {
                putSge(i, w.sge(i));
            }
            wr.set(JAVA_LONG, WR_ID, w.wrId());
            wr.set(JAVA_INT, NUM_SGE, w.numSge());
        }
    }
}
