package dev.virtuoso.decomposer.internal;

import java.util.Arrays;

import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.decomposer.MessageSpec;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * MP work requests being decomposed, in parallel arrays with a free-slot stack; the arrays start at
 * {@link #INITIAL_SLOTS} and double up to the table's limit when every slot is in use (a table sized
 * for every request and notice a connection may have, 2049 with the defaults, usually holds a few).
 */
final class MessageTable {
    /** Message slots a table starts with. */
    static final int INITIAL_SLOTS = 64;

    long[] wrId;
    long[] tag;
    long[] messageId;
    MpOpcode[] opcode;
    IbvWrOpcode[] chunkOpcode;
    long[] localAddr;
    int[] lkey;
    long[] length;
    long[] remoteAddr;
    int[] rkey;
    int[] immData;
    boolean[] split;
    /** Bytes handed to chunks for the first time (the decomposition cursor). */
    long[] placed;
    long[] completedBytes;
    int[] chunksInFlight;
    /** Ranges of this message waiting in the re-post queue. */
    int[] rangesQueued;
    boolean[] started;
    /** Whether the message waits in the fresh-placement queue. */
    boolean[] inFresh;
    long[] pathMask;
    /** Paths where an attempt of this message failed and the peer has not yet fenced them. */
    long[] fenceMask;
    /** Counted once as held for a fence. */
    boolean[] heldForFence;
    /** A direct small SEND whose attempt failed: re-sent as a SEND once {@link #fenceMask} is clear. */
    boolean[] resendAfterFence;
    /** The receiver drops a second copy ({@link dev.virtuoso.decomposer.MessageSpec#dropsDuplicates}): no fence. */
    boolean[] dropsDuplicates;
    MpStatus[] status;
    String[] detail;
    private final SlotStack slots;
    private long nextMessageId;

    /** @param limit most messages at once */
    MessageTable(int limit) {
        slots = new SlotStack(Math.min(limit, INITIAL_SLOTS), limit);
        arrays(slots.capacity());
    }

    /** Allocates (or grows, keeping their contents) every array to {@code n} slots. */
    private void arrays(int n) {
        wrId = wrId == null ? new long[n] : Arrays.copyOf(wrId, n);
        tag = tag == null ? new long[n] : Arrays.copyOf(tag, n);
        messageId = messageId == null ? new long[n] : Arrays.copyOf(messageId, n);
        opcode = opcode == null ? new MpOpcode[n] : Arrays.copyOf(opcode, n);
        chunkOpcode = chunkOpcode == null ? new IbvWrOpcode[n] : Arrays.copyOf(chunkOpcode, n);
        localAddr = localAddr == null ? new long[n] : Arrays.copyOf(localAddr, n);
        lkey = lkey == null ? new int[n] : Arrays.copyOf(lkey, n);
        length = length == null ? new long[n] : Arrays.copyOf(length, n);
        remoteAddr = remoteAddr == null ? new long[n] : Arrays.copyOf(remoteAddr, n);
        rkey = rkey == null ? new int[n] : Arrays.copyOf(rkey, n);
        immData = immData == null ? new int[n] : Arrays.copyOf(immData, n);
        split = split == null ? new boolean[n] : Arrays.copyOf(split, n);
        placed = placed == null ? new long[n] : Arrays.copyOf(placed, n);
        completedBytes = completedBytes == null ? new long[n] : Arrays.copyOf(completedBytes, n);
        chunksInFlight = chunksInFlight == null ? new int[n] : Arrays.copyOf(chunksInFlight, n);
        rangesQueued = rangesQueued == null ? new int[n] : Arrays.copyOf(rangesQueued, n);
        started = started == null ? new boolean[n] : Arrays.copyOf(started, n);
        inFresh = inFresh == null ? new boolean[n] : Arrays.copyOf(inFresh, n);
        pathMask = pathMask == null ? new long[n] : Arrays.copyOf(pathMask, n);
        fenceMask = fenceMask == null ? new long[n] : Arrays.copyOf(fenceMask, n);
        heldForFence = heldForFence == null ? new boolean[n] : Arrays.copyOf(heldForFence, n);
        resendAfterFence = resendAfterFence == null ? new boolean[n] : Arrays.copyOf(resendAfterFence, n);
        dropsDuplicates = dropsDuplicates == null ? new boolean[n] : Arrays.copyOf(dropsDuplicates, n);
        status = status == null ? new MpStatus[n] : Arrays.copyOf(status, n);
        detail = detail == null ? new String[n] : Arrays.copyOf(detail, n);
    }

    /** @return most messages at once */
    int limit() {
        return slots.limit();
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

    /** @return the slot holding a copy of {@code spec}, or -1 if {@link #limit()} are in progress */
    int add(MessageSpec spec) {
        int m = slots.allocate();
        if (m < 0) {
            return -1;
        }
        if (m >= wrId.length) {
            arrays(slots.capacity());
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
        dropsDuplicates[m] = spec.dropsDuplicatesDeclared();
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
