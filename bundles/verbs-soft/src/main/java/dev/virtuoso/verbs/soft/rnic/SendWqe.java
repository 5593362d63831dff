package dev.virtuoso.verbs.soft.rnic;

import java.nio.ByteBuffer;

import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * One slot of a send queue: the copied WR (written by the posting thread before publication) and
 * the engine's transmission state for it. Stays in place until the WR completes, so go-back-N can
 * rebuild any of its packets.
 */
final class SendWqe {
    // copied at post time
    long wrId;
    IbvWrOpcode opcode;
    int flags;
    int numSge;
    final long[] addr;
    final int[] len;
    final int[] lkey;
    long remoteAddr;
    int rkey;
    int imm;
    int length;
    boolean inline;
    /** Inline payload copied at post time, or null when the QP allows none. */
    final ByteBuffer inlineData;

    // engine state
    final SoftMr[] mr;
    final long[] offset;
    boolean started;
    int firstPsn;
    int npsn;
    IbvWcStatus error;

    SendWqe(int maxSge, ByteBuffer inlineData) {
        addr = new long[maxSge];
        len = new int[maxSge];
        lkey = new int[maxSge];
        mr = new SoftMr[maxSge];
        offset = new long[maxSge];
        this.inlineData = inlineData;
    }
}
