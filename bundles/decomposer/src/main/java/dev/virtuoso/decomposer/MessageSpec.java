package dev.virtuoso.decomposer;

import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/**
 * One MP work request as the decomposition sees it: a local range, a remote range and the verb its
 * chunks use. Mutable and reused by the caller (no allocation per request); the decomposition
 * copies it in {@link Decomposition#submit}.
 */
public final class MessageSpec {
    private long wrId;
    private long tag;
    private MpOpcode opcode = MpOpcode.WRITE;
    private IbvWrOpcode chunkOpcode = IbvWrOpcode.RDMA_WRITE;
    private long localAddr;
    private int lkey;
    private long length;
    private long remoteAddr;
    private int rkey;
    private int immData;
    private boolean split = true;
    private boolean dropsDuplicates;

    /**
     * An MP_WRITE: chunks are RDMA WRITEs from the local range to the remote range.
     *
     * @return this
     */
    public MessageSpec write(long wrId, long localAddr, int lkey, long length, long remoteAddr, int rkey) {
        return set(wrId, MpOpcode.WRITE, IbvWrOpcode.RDMA_WRITE, localAddr, lkey, length, remoteAddr, rkey, 0,
                true);
    }

    /**
     * An MP_READ: chunks are RDMA READs from the remote range into the local range.
     *
     * @return this
     */
    public MessageSpec read(long wrId, long localAddr, int lkey, long length, long remoteAddr, int rkey) {
        return set(wrId, MpOpcode.READ, IbvWrOpcode.RDMA_READ, localAddr, lkey, length, remoteAddr, rkey, 0,
                true);
    }

    /**
     * A large MP_SEND: chunks are RDMA WRITEs straight into the peer's posted receive buffer.
     *
     * @return this
     */
    public MessageSpec sendLarge(long wrId, long localAddr, int lkey, long length, long remoteAddr, int rkey) {
        return set(wrId, MpOpcode.SEND, IbvWrOpcode.RDMA_WRITE, localAddr, lkey, length, remoteAddr, rkey, 0,
                true);
    }

    /**
     * A small MP_SEND: one SEND with immediate, never split.
     *
     * @return this
     */
    public MessageSpec sendSmall(long wrId, long localAddr, int lkey, long length, int immData) {
        return set(wrId, MpOpcode.SEND, IbvWrOpcode.SEND_WITH_IMM, localAddr, lkey, length, 0, 0, immData, false);
    }

    /**
     * A small MP_SEND straight into the peer's posted receive buffer: one RDMA WRITE with immediate,
     * never split. If the attempt fails, the decomposition re-sends the message as one SEND with
     * the same immediate, and only once the failed path is fenced (see {@link Decomposition}).
     *
     * @return this
     * @since 2.1
     */
    public MessageSpec sendSmallDirect(long wrId, long localAddr, int lkey, long length, long remoteAddr, int rkey,
            int immData) {
        return set(wrId, MpOpcode.SEND, IbvWrOpcode.RDMA_WRITE_WITH_IMM, localAddr, lkey, length, remoteAddr, rkey,
                immData, false);
    }

    /**
     * Sets every field.
     *
     * @param wrId application identifier
     * @param opcode MP operation reported in the completion
     * @param chunkOpcode verb of each chunk
     * @param localAddr local virtual address of the first byte
     * @param lkey local key
     * @param length message length
     * @param remoteAddr remote virtual address of the first byte
     * @param rkey remote key
     * @param immData immediate of WITH_IMM chunks
     * @param split whether the message may be split (false: one chunk on one path)
     * @return this
     */
    public MessageSpec set(long wrId, MpOpcode opcode, IbvWrOpcode chunkOpcode, long localAddr, int lkey,
            long length, long remoteAddr, int rkey, int immData, boolean split) {
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0: " + length);
        }
        this.wrId = wrId;
        this.opcode = opcode;
        this.chunkOpcode = chunkOpcode;
        this.localAddr = localAddr;
        this.lkey = lkey;
        this.length = length;
        this.remoteAddr = remoteAddr;
        this.rkey = rkey;
        this.immData = immData;
        this.split = split;
        this.tag = 0;
        this.dropsDuplicates = false;
        return this;
    }

    /**
     * Declares that the receiver recognises a second copy of this SEND (by its immediate or
     * payload) and drops it. A late packet of a failed attempt can then change nothing the peer's
     * application sees, so the message completes once a copy of it has, without waiting for
     * {@link Decomposition#pathFenced} of the path where the attempt failed (a path repair may be
     * up to a second away). Only for SEND chunks: a WRITE or READ always waits for the fence.
     * Reset by {@link #set}.
     *
     * @return this
     * @throws IllegalStateException if the chunks are not SENDs
     * @since 2.3
     */
    public MessageSpec dropsDuplicates() {
        if (chunkOpcode != IbvWrOpcode.SEND_WITH_IMM && chunkOpcode != IbvWrOpcode.SEND) {
            throw new IllegalStateException("only a SEND's receiver can drop a second copy, not " + chunkOpcode);
        }
        this.dropsDuplicates = true;
        return this;
    }

    /**
     * @return true if {@link #dropsDuplicates()} was declared
     * @since 2.3
     */
    public boolean dropsDuplicatesDeclared() {
        return dropsDuplicates;
    }

    /** @param tag caller's value echoed in the completion @return this */
    public MessageSpec tag(long tag) {
        this.tag = tag;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public long tag() {
        return tag;
    }

    public MpOpcode opcode() {
        return opcode;
    }

    public IbvWrOpcode chunkOpcode() {
        return chunkOpcode;
    }

    public long localAddr() {
        return localAddr;
    }

    public int lkey() {
        return lkey;
    }

    public long length() {
        return length;
    }

    public long remoteAddr() {
        return remoteAddr;
    }

    public int rkey() {
        return rkey;
    }

    public int immData() {
        return immData;
    }

    /** @return true if the message may be split over paths */
    public boolean split() {
        return split;
    }
}
