package dev.virtuoso.decomposer.internal;

import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/** MP work requests being decomposed, in preallocated parallel arrays with a free-slot stack. */
final class MessageTable {
    final long[] wrId;
    final long[] tag;
    final long[] messageId;
    final MpOpcode[] opcode;
    final IbvWrOpcode[] chunkOpcode;
    final long[] localAddr;
    final int[] lkey;
    final long[] length;
    final long[] remoteAddr;
    final int[] rkey;
    final int[] immData;
    final boolean[] split;
    /** Bytes handed to chunks for the first time (the decomposition cursor). */
    final long[] placed;
    final long[] completedBytes;
    final int[] chunksInFlight;
    /** Ranges of this message waiting in the re-post queue. */
    final int[] rangesQueued;
    final boolean[] started;
    /** Whether the message waits in the fresh-placement queue. */
    final boolean[] inFresh;
    final long[] pathMask;
    /** Paths where an attempt of this message failed and the peer has not yet fenced them. */
    final long[] fenceMask;
    /** Counted once as held for a fence. */
    final boolean[] heldForFence;
    /** A direct small SEND whose attempt failed: re-sent as a SEND once {@link #fenceMask} is clear. */
    final boolean[] resendAfterFence;
    final MpStatus[] status;
    final String[] detail;
    private final SlotStack slots;
    private long nextMessageId;

    MessageTable(int capacity) {
        wrId = new long[capacity];
        tag = new long[capacity];
        messageId = new long[capacity];
        opcode = new MpOpcode[capacity];
        chunkOpcode = new IbvWrOpcode[capacity];
        localAddr = new long[capacity];
        lkey = new int[capacity];
        length = new long[capacity];
        remoteAddr = new long[capacity];
        rkey = new int[capacity];
        immData = new int[capacity];
        split = new boolean[capacity];
        placed = new long[capacity];
        completedBytes = new long[capacity];
        chunksInFlight = new int[capacity];
        rangesQueued = new int[capacity];
        started = new boolean[capacity];
        inFresh = new boolean[capacity];
        pathMask = new long[capacity];
        fenceMask = new long[capacity];
        heldForFence = new boolean[capacity];
        resendAfterFence = new boolean[capacity];
        status = new MpStatus[capacity];
        detail = new String[capacity];
        slots = new SlotStack(capacity);
    }

    int capacity() {
        return slots.capacity();
    }

    int inUse() {
        return slots.inUse();
    }

    boolean inUse(int slot) {
        return slots.inUse(slot);
    }

    /** @return the slot holding a copy of {@code spec}, or -1 if full */
    int add(MessageSpec spec) {
        int m = slots.allocate();
        if (m < 0) {
            return -1;
        }
        wrId[m] = spec.wrId();
        tag[m] = spec.tag();
        messageId[m] = nextMessageId++;
        opcode[m] = spec.opcode();
        chunkOpcode[m] = spec.chunkOpcode();
        localAddr[m] = spec.localAddr();
        lkey[m] = spec.lkey();
        length[m] = spec.length();
        remoteAddr[m] = spec.remoteAddr();
        rkey[m] = spec.rkey();
        immData[m] = spec.immData();
        split[m] = spec.split();
        placed[m] = 0;
        completedBytes[m] = 0;
        chunksInFlight[m] = 0;
        rangesQueued[m] = 0;
        started[m] = false;
        inFresh[m] = false;
        pathMask[m] = 0;
        fenceMask[m] = 0;
        heldForFence[m] = false;
        resendAfterFence[m] = false;
        status[m] = MpStatus.SUCCESS;
        detail[m] = null;
        return m;
    }

    void release(int m) {
        detail[m] = null;
        slots.release(m);
    }

    boolean failed(int m) {
        return status[m] != MpStatus.SUCCESS;
    }
}
