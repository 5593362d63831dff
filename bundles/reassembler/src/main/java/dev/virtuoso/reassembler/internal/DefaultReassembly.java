package dev.virtuoso.reassembler.internal;

import static dev.virtuoso.reassembler.ReassemblyConfig.MIN_SLOTS;
import static dev.virtuoso.reassembler.ReassemblyConfig.MIN_SLOT_BYTES;
import static dev.virtuoso.reassembler.internal.ControlRecords.CREDIT;
import static dev.virtuoso.reassembler.internal.ControlRecords.CREDIT_BYTES;
import static dev.virtuoso.reassembler.internal.ControlRecords.FLAG_CREDIT;
import static dev.virtuoso.reassembler.internal.ControlRecords.FLAG_SMALL;
import static dev.virtuoso.reassembler.internal.ControlRecords.FLAG_WRITABLE;
import static dev.virtuoso.reassembler.internal.ControlRecords.INLINE_HEADER;
import static dev.virtuoso.reassembler.internal.ControlRecords.INLINE_RECORD_ROOM;
import static dev.virtuoso.reassembler.internal.ControlRecords.INLINE_SEND;
import static dev.virtuoso.reassembler.internal.ControlRecords.NOTICE_BYTES;
import static dev.virtuoso.reassembler.internal.ControlRecords.REASON_FAILED;
import static dev.virtuoso.reassembler.internal.ControlRecords.REASON_NOT_WRITABLE;
import static dev.virtuoso.reassembler.internal.ControlRecords.REASON_TOO_LONG;
import static dev.virtuoso.reassembler.internal.ControlRecords.RECV_POSTED;
import static dev.virtuoso.reassembler.internal.ControlRecords.RECV_POSTED_ENTRY;
import static dev.virtuoso.reassembler.internal.ControlRecords.RECV_POSTED_HEADER;
import static dev.virtuoso.reassembler.internal.ControlRecords.SEND_DONE;
import static dev.virtuoso.reassembler.internal.ControlRecords.SEND_FAILED;

import java.nio.ByteBuffer;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.PlacementNotice;
import dev.virtuoso.reassembler.ReassemblyConfig;
import dev.virtuoso.reassembler.ReassemblyCounters;
import dev.virtuoso.reassembler.ReassemblyCounters.Counter;
import dev.virtuoso.reassembler.ReassemblyException;
import dev.virtuoso.reassembler.ReceiveCompletionSink;
import dev.virtuoso.reassembler.SendTarget;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.util.WrId;

/**
 * Both directions of MP_SEND / MP_RECV for one connection (see the package documentation).
 *
 * <p>Control messages: the records of {@link ControlRecords} travel on the paths, one message at a
 * time per direction, each a SEND with immediate ({@link Notices#CONTROL} | its 30-bit sequence) into
 * one of the peer's receive slots, charged a slot credit like a small message. One at a time keeps
 * them in order across paths (the next is posted after the previous one's SEND completed, i.e. was
 * placed); a message whose SEND failed is posted again unchanged and uncharged, and the receiver
 * drops a copy it already took by its sequence (crediting only the first). Credits for credits: a
 * small message or a notice leaves the last credit to control messages, and a control message takes
 * the last credit only if it returns credits; a message of credits alone is due only from
 * {@link #creditThreshold} (at least 2) on, so the peer's answer to it never is one, and at least
 * 3 slots per side keep a side whose data waits for credits from waiting on a message that is not
 * due.
 */
final class DefaultReassembly implements dev.virtuoso.reassembler.Reassembly {
    private static final System.Logger LOG = System.getLogger(DefaultReassembly.class.getName());
    /** The smallest path MTU (IBA: 256 bytes). */
    private static final int MIN_PACKET_BYTES = 256;
    private final ReassemblyConfig config;
    /** The SRQ and its slots, or {@code null} without SRQ (then {@link #sets}). */
    private final IbvSrq srq;
    private final IbvMr slabMr;
    private final ByteBuffer slab;
    /** One slot set per path QP when the device has no SRQ, else {@code null}. */
    private final SlotSets sets;
    private final IbvRecvWr recvWr = new IbvRecvWr(1);
    private final ReassemblyCounters counters = new ReassemblyCounters();
    private final int creditThreshold;

    // receive side
    private final ReceiveTable receives;
    private long completeSeq;
    private long postSeq;
    private long advertisedSeq;
    private int creditsToReturn;
    /** A large message completed since the last advertisement ({@link #advertisementsDue}). */
    private boolean largeSinceAdvertised;

    // send side
    private RemoteReceives remote;
    /** Failure reports (and placement reports of failed notices) for the next control message. */
    private NoticeQueue notices;
    /** Placement notices of large MP_SENDs, sent on the paths. */
    private final Notices placements;
    private final long[] released = new long[3];
    /** The control message being composed or in flight (in {@link #placements}' region). */
    private final ByteBuffer control;
    /** Bytes of records per control message: the smaller of {@link Notices#RECORD_BYTES} and the peer's slot. */
    private int recordLimit;
    /** Bytes per control message, records and a small message riding in it: at most the peer's slot. */
    private int messageLimit;
    /** Payload bytes one packet carries on every path ({@link #packetBytes(int)}); unbounded until set. */
    private int packetBytes = Integer.MAX_VALUE;
    private int controlLength;
    private int controlImm;
    private int controlSeq;
    private boolean controlInFlight;
    private boolean controlResend;
    /**
     * The control message composed last carries a small MP_SEND ({@link #reserveInline}) that has
     * not ended; while neither in flight nor to be re-sent, it waits for {@link #nextNotice}.
     */
    private boolean controlCarriesSend;
    /** Next control message sequence expected from the peer (30 bits). */
    private int controlExpected;
    private long peerSlotBytes;
    private int peerSlots;
    private int credits;

    private boolean started;
    private boolean closed;
    private boolean slotErrorLogged;

    /** With a shared receive queue holding the slots of {@code slab}. */
    DefaultReassembly(ReassemblyConfig config, IbvSrq srq, IbvMr slabMr, ByteBuffer slab, Notices placements) {
        this(config, srq, slabMr, slab, null, placements);
    }

    /** Without SRQ: every path QP gets a slot set of its own from {@code sets}. */
    DefaultReassembly(ReassemblyConfig config, SlotSets sets, Notices placements) {
        this(config, null, null, null, sets, placements);
    }

    private DefaultReassembly(ReassemblyConfig config, IbvSrq srq, IbvMr slabMr, ByteBuffer slab, SlotSets sets,
            Notices placements) {
        check(config);
        this.config = config;
        this.srq = srq;
        this.slabMr = slabMr;
        this.slab = slab;
        this.sets = sets;
        this.placements = placements;
        this.control = placements.controlBuffer();
        this.receives = new ReceiveTable(config.maxReceives());
        // half the slots: the peer keeps the other half to send on while the credits travel
        this.creditThreshold = Math.max(2, config.slots() / 2);
    }

    /** @throws IllegalArgumentException if the slots cannot carry the control messages (class comment) */
    static void check(ReassemblyConfig config) {
        if (config.slots() < MIN_SLOTS || config.slotBytes() < MIN_SLOT_BYTES) {
            throw new IllegalArgumentException("a reassembly needs at least " + MIN_SLOTS + " slots of at least "
                    + MIN_SLOT_BYTES + " bytes: " + config.slots() + " x " + config.slotBytes());
        }
    }

    @Override
    public IbvSrq srq() {
        return srq;
    }

    @Override
    public void configureQp(IbvQpInitAttr attr) {
        if (sets == null) {
            attr.srq(srq);
        } else {
            attr.srq(null).maxRecvWr(config.slots()).maxRecvSge(1);
        }
    }

    @Override
    public void attachQp(IbvQp qp) throws VerbsException {
        if (sets != null && !closed) {
            sets.attach(qp);
        }
    }

    @Override
    public void detachQp(IbvQp qp) {
        if (sets != null && !closed) {
            sets.detach(qp);
        }
    }

    @Override
    public ReassemblyConfig config() {
        return config;
    }

    @Override
    public void start(int peerMaxReceives, int peerSlotCount, int peerSlotSize) throws VerbsException {
        if (started) {
            throw new IllegalStateException("already started");
        }
        if (peerMaxReceives < 1 || peerSlotCount < MIN_SLOTS || peerSlotSize < MIN_SLOT_BYTES) {
            throw new IllegalArgumentException("invalid peer sizes: " + peerMaxReceives + "/" + peerSlotCount + "/"
                    + peerSlotSize + " (at least " + MIN_SLOTS + " slots of " + MIN_SLOT_BYTES + " bytes)");
        }
        remote = new RemoteReceives(peerMaxReceives);
        // failure reports, plus the fallback reports of as many failed notices as there are notice entries
        notices = new NoticeQueue(2 * peerMaxReceives + config.maxReceives());
        placements.start(2 * peerMaxReceives);
        peerSlots = peerSlotCount;
        credits = peerSlotCount;
        peerSlotBytes = peerSlotSize;
        recordLimit = Math.min(Notices.RECORD_BYTES, peerSlotSize);
        messageLimit = Math.min(control.capacity(), peerSlotSize);
        started = true;
    }

    /**
     * Posts every SRQ slot: at creation, before the handshake ends, since the peer may send its
     * first small message as soon as it has our READY/ACCEPT (a missing slot would be an RNR NAK).
     */
    void postSrqSlots() throws VerbsException {
        for (int slot = 0; slot < config.slots(); slot++) {
            postSlot(slot);
        }
    }

    private void postSlot(int slot) throws VerbsException {
        recvWr.wrId(WrId.pack(config.wrIdTag(), 0, slot)).numSge(1);
        recvWr.sge(0).set(slabMr.address() + (long) slot * config.slotBytes(), config.slotBytes(), slabMr.lkey());
        srq.postSrqRecv(recvWr);
    }

    // ---------------------------------------------------------------- receive side

    @Override
    public boolean postReceive(long wrId, ByteBuffer region, int offset, int capacity, long remoteAddr, int rkey,
            boolean remoteWritable) {
        if (closed || postSeq - completeSeq >= receives.limit()) {
            return false;
        }
        if (postSeq - completeSeq == receives.length()) {
            receives.grow(completeSeq, postSeq); // the table starts small (engine thread; only while it grows)
        }
        int i = receives.index(postSeq);
        receives.wrId[i] = wrId;
        receives.region[i] = region;
        receives.offset[i] = offset;
        receives.capacity[i] = capacity;
        receives.addr[i] = remoteAddr;
        receives.rkey[i] = rkey;
        receives.writable[i] = remoteWritable;
        receives.state[i] = ReceiveTable.POSTED;
        postSeq++;
        return true;
    }

    @Override
    public void onCompletion(IbvWc wc) throws ReassemblyException {
        try {
            slotCompletion(wc);
        } catch (ReassemblyException e) {
            counters.add(Counter.VIOLATION, 1);
            throw e;
        }
    }

    private void slotCompletion(IbvWc wc) throws ReassemblyException {
        long slotId = WrId.slot(wc.wrId());
        if (slotId >= config.slots()) {
            throw new ReassemblyException("completion for unknown slot " + slotId);
        }
        int slot = (int) slotId;
        if (sets != null) {
            onQpSlotCompletion(wc, slot);
            return;
        }
        if (wc.status() != IbvWcStatus.SUCCESS) {
            counters.add(Counter.SLOT_ERROR, 1);
            repost(slot);
            return;
        }
        try {
            arrived(slab, slot, wc);
        } finally {
            repost(slot);
        }
    }

    /** Without SRQ: the slot belongs to the set of the QP that consumed it. */
    private void onQpSlotCompletion(IbvWc wc, int slot) throws ReassemblyException {
        SlotSets.SlotSet set = sets.of(wc.wrId());
        if (set == null) {
            // a completion of a set reclaimed after its QP was destroyed
            counters.add(Counter.SLOT_ERROR, 1);
            return;
        }
        sets.completed(set);
        if (wc.status() != IbvWcStatus.SUCCESS) {
            // the QP is in ERR (a failed path): its other slots are flushed, none is reposted there
            counters.add(Counter.SLOT_ERROR, 1);
            sets.failed(set);
            return;
        }
        try {
            arrived(set.slab, slot, wc);
        } finally {
            if (!closed) {
                try {
                    sets.repost(set, slot);
                } catch (VerbsException e) {
                    slotError(e);
                }
            }
        }
    }

    /**
     * A SEND into a slot (a small message or a placement notice, told apart by the immediate), or
     * the slot consumed by a small message written straight into its receive buffer.
     */
    private void arrived(ByteBuffer slotMemory, int slot, IbvWc wc) throws ReassemblyException {
        if (!wc.hasImm()) {
            throw new ReassemblyException("small message without sequence number");
        }
        int imm = wc.immData();
        if (wc.opcode() == IbvWcOpcode.RECV_RDMA_WITH_IMM) {
            if ((imm & Notices.NOTICE) != 0) {
                throw new ReassemblyException("placement notice or control message as an RDMA WRITE");
            }
            placeDirect(imm, wc.byteLen());
            return;
        }
        if (wc.opcode() != IbvWcOpcode.RECV) {
            throw new ReassemblyException("unexpected " + wc.opcode() + " into a receive slot");
        }
        if ((imm & Notices.CLASS_MASK) == Notices.CONTROL) {
            onControlMessage(slotMemory, slot * config.slotBytes(), imm & Notices.SEQ_MASK, wc.byteLen());
        } else if ((imm & Notices.NOTICE) != 0) {
            onNotice(slotMemory, slot * config.slotBytes(), imm & Notices.SEQ_MASK, wc.byteLen());
        } else {
            placeSmall(slotMemory, slot, imm, wc.byteLen());
        }
    }

    /**
     * A control message of the peer: taken once, in order (a copy re-sent after its SEND failed is
     * a duplicate, dropped uncredited); its slot was charged a credit, returned like a small
     * message's.
     */
    private void onControlMessage(ByteBuffer slotMemory, int at, int seq30, int len) throws ReassemblyException {
        int rel = ((seq30 - controlExpected) << 2) >> 2;
        if (rel < 0) {
            counters.add(Counter.DUPLICATE, 1);
            return;
        }
        if (rel > 0) {
            throw new ReassemblyException("control message " + seq30 + " out of order, expected " + controlExpected);
        }
        controlExpected = (controlExpected + 1) & Notices.SEQ_MASK;
        creditsToReturn++;
        counters.add(Counter.CONTROL_RECEIVED, 1);
        slotMemory.limit(at + len).position(at);
        try {
            control(slotMemory);
        } finally {
            slotMemory.clear();
        }
    }

    /**
     * @param seq31 a sequence number's low 31 bits (an immediate)
     * @return the receive table index of an advertised, still posted receive, or -1 if it was
     *     delivered or placed already (a copy re-sent after a path failure)
     */
    private int slotTarget(int seq31, String what) throws ReassemblyException {
        int rel = ((seq31 - (int) completeSeq) << 1) >> 1;
        if (rel < 0) {
            counters.add(Counter.DUPLICATE, 1);
            return -1;
        }
        if (rel >= advertisedSeq - completeSeq) {
            throw new ReassemblyException(what + " for receive " + Integer.toUnsignedString(seq31)
                    + " which was never advertised");
        }
        int i = receives.index(completeSeq + rel);
        if (receives.state[i] != ReceiveTable.POSTED) {
            counters.add(Counter.DUPLICATE, 1);
            return -1;
        }
        return i;
    }

    /** A placement notice: every byte of a large message is in its receive buffer. */
    private void onNotice(ByteBuffer slotMemory, int at, int seq30, int len) throws ReassemblyException {
        if (len != Notices.PAYLOAD_BYTES) {
            throw new ReassemblyException("placement notice of " + len + " bytes");
        }
        int seq = slotMemory.getInt(at);
        long length = Integer.toUnsignedLong(slotMemory.getInt(at + 4));
        int paths = slotMemory.get(at + 8) & 0xFF;
        if ((seq & Notices.SEQ_MASK) != seq30) {
            throw new ReassemblyException("placement notice for " + Integer.toUnsignedString(seq)
                    + " with immediate " + seq30);
        }
        if (paths > 64) {
            throw new ReassemblyException("placement notice naming " + paths + " paths");
        }
        int i = slotTarget(seq & 0x7FFF_FFFF, "placement notice");
        if (i < 0) {
            return;
        }
        if (length > receives.capacity[i]) {
            throw new ReassemblyException("peer reports " + length + " bytes placed in a buffer of "
                    + receives.capacity[i]);
        }
        creditsToReturn++;
        largeSinceAdvertised = true;
        counters.add(Counter.LARGE, 1);
        counters.add(Counter.NOTICE_RECEIVED, 1);
        receives.done(i, MpStatus.SUCCESS, length, paths, null);
    }

    private void placeSmall(ByteBuffer slotMemory, int slot, int imm, int len) throws ReassemblyException {
        int i = slotTarget(imm, "small message");
        if (i < 0) {
            return;
        }
        creditsToReturn++;
        if (len > receives.capacity[i]) {
            counters.add(Counter.FAILED, 1);
            receives.done(i, MpStatus.LOCAL_LENGTH_ERROR, len, 1, "message of " + len
                    + " bytes is longer than the receive buffer (" + receives.capacity[i] + ")");
            return;
        }
        if (len > 0) {
            receives.region[i].put(receives.offset[i], slotMemory, slot * config.slotBytes(), len);
            counters.add(Counter.COPIED, len);
        }
        counters.add(Counter.SMALL, 1);
        counters.add(Counter.SMALL_COPIED, 1);
        receives.done(i, MpStatus.SUCCESS, len, 1, null);
    }

    /**
     * A small message the peer wrote with immediate straight into the receive buffer: its bytes
     * are all there (the RNIC completes a WRITE with immediate after its last byte) and
     * {@code len} is the WRITE's length (as rxe reports it: the RETH length). The slot it consumed
     * was charged one credit like a SEND.
     *
     * <p>A duplicate cannot have written into a buffer delivered before: the sender writes a
     * message once; an attempt that failed is re-sent as a SEND into a slot (dropped here as a
     * duplicate if the WRITE had landed after all), and only once the failed path is fenced, so
     * the failed WRITE cannot land after the re-sent copy was delivered.
     */
    private void placeDirect(int imm, int len) throws ReassemblyException {
        int i = slotTarget(imm, "small message");
        if (i < 0) {
            return;
        }
        if (!receives.writable[i]) {
            throw new ReassemblyException("peer wrote into receive " + Integer.toUnsignedString(imm)
                    + ", advertised as not remotely writable");
        }
        if (Integer.toUnsignedLong(len) > receives.capacity[i]) {
            // the sender knows the capacity and must not write beyond it (it reports TOO_LONG instead)
            throw new ReassemblyException("peer wrote " + Integer.toUnsignedString(len)
                    + " bytes into a receive buffer of " + receives.capacity[i]);
        }
        creditsToReturn++;
        counters.add(Counter.SMALL, 1);
        counters.add(Counter.SMALL_ZERO_COPY, 1);
        receives.done(i, MpStatus.SUCCESS, len, 1, null);
    }

    private void repost(int slot) {
        if (closed) {
            return;
        }
        try {
            postSlot(slot);
        } catch (VerbsException e) {
            slotError(e);
        }
    }

    /** A receive slot could not be re-posted: counted every time, logged the first time (it may repeat per message). */
    private void slotError(VerbsException e) {
        if (!slotErrorLogged) {
            slotErrorLogged = true;
            LOG.log(System.Logger.Level.ERROR, "cannot re-post a receive slot (further failures are only counted)", e);
        }
        counters.add(Counter.SLOT_ERROR, 1);
    }

    @Override
    public int deliver(ReceiveCompletionSink sink) {
        int n = 0;
        while (completeSeq < postSeq) {
            int i = receives.index(completeSeq);
            if (receives.state[i] != ReceiveTable.DONE) {
                break;
            }
            long wrId = receives.wrId[i];
            MpStatus status = receives.status[i];
            long len = receives.length[i];
            int pathCount = receives.paths[i];
            String detail = receives.detail[i];
            receives.clear(i);
            completeSeq++;
            n++;
            sink.onReceiveComplete(wrId, status, len, pathCount, detail);
        }
        return n;
    }

    @Override
    public int flush(ReceiveCompletionSink sink, MpStatus status) {
        int n = deliver(sink);
        while (completeSeq < postSeq) {
            int i = receives.index(completeSeq);
            long wrId = receives.wrId[i];
            boolean placed = receives.state[i] == ReceiveTable.DONE;
            MpStatus s = placed ? receives.status[i] : status;
            long len = placed ? receives.length[i] : 0;
            int pathCount = placed ? receives.paths[i] : 0;
            String detail = placed ? receives.detail[i] : "connection closed";
            receives.clear(i);
            completeSeq++;
            n++;
            sink.onReceiveComplete(wrId, s, len, pathCount, detail);
        }
        advertisedSeq = postSeq;
        return n;
    }

    @Override
    public int receivesInProgress() {
        return (int) (postSeq - completeSeq);
    }

    // ---------------------------------------------------------------- send side

    @Override
    public int reserveSend(long length, SendTarget out) {
        if (remote == null || !remote.available()) {
            return NOT_READY;
        }
        long seq = remote.nextSend;
        int i = remote.index(seq);
        boolean small = length < config.splitThreshold() && length <= peerSlotBytes;
        if (length > remote.capacity[i]) {
            remote.nextSend++;
            // no slot credit was charged, so the failure report carries no FLAG_SMALL
            notice(SEND_FAILED, seq, length, REASON_TOO_LONG);
            return TOO_LONG;
        }
        if (small) {
            if (credits <= 1) { // the last credit is the control messages' (class comment)
                counters.add(Counter.CREDIT_WAIT, 1);
                return NOT_READY;
            }
            credits--;
            remote.nextSend++;
            // a writable buffer takes the message by WRITE with immediate (no copy at the peer); it
            // fits: the length was checked against the advertised capacity above, and against the
            // peer's slot size, so a failed WRITE can always be re-sent as a SEND into a slot
            boolean direct = remote.writable[i];
            out.set(seq, (int) seq & Notices.SEQ_MASK, direct ? remote.addr[i] : 0, direct ? remote.rkey[i] : 0,
                    direct);
            return SMALL;
        }
        remote.nextSend++;
        if (!remote.writable[i]) {
            notice(SEND_FAILED, seq, length, REASON_NOT_WRITABLE);
            return NOT_WRITABLE;
        }
        out.set(seq, (int) seq & Notices.SEQ_MASK, remote.addr[i], remote.rkey[i]);
        return LARGE;
    }

    /**
     * One SEND for a small message and the records waiting at the time: the records are composed
     * now (leaving room for the message), the message's bytes go last ({@link
     * ControlRecords#INLINE_SEND}), and the next {@link #nextNotice} posts it. The control message's
     * slot credit is the only one charged; the receiver copies the bytes out of its slot. When
     * records wait that are not due, the message rides only if the control message stays one
     * packet; with none waiting, or if it would not, it goes by {@link #reserveSend} in a packet of
     * its own (zero copy into a writable buffer) and the records wait until they are due.
     */
    @Override
    public int reserveInline(long length, ByteBuffer source, int offset, SendTarget out) {
        if (!started || closed || controlInFlight || controlResend || controlCarriesSend || !remote.available()
                || !controlCredit()) {
            return NOT_READY;
        }
        // due records go anyway: the message rides with them even if that takes two packets (one
        // SEND, one WR, measured faster than a control message and a message of its own); records
        // not due yet ride free if the message keeps it one packet (a later packet of their own
        // saved); with nothing waiting it goes by reserveSend (zero copy where writable)
        int limit;
        if (controlDue()) {
            limit = messageLimit;
        } else if (creditsToReturn > 0 || advertisedSeq < postSeq) {
            limit = Math.min(messageLimit, packetBytes);
        } else {
            return NOT_READY;
        }
        if (length >= config.splitThreshold() || length > peerSlotBytes
                || length > limit - INLINE_HEADER - INLINE_RECORD_ROOM) {
            return NOT_READY;
        }
        long seq = remote.nextSend;
        if (length > remote.capacity[remote.index(seq)]) {
            return NOT_READY; // reserveSend reports it TOO_LONG
        }
        int n = (int) length;
        int at = beginControl(Math.min(recordLimit, limit - INLINE_HEADER - n));
        control.put(at, INLINE_SEND).putInt(at + 1, (int) seq).putInt(at + 5, n)
                .put(at + INLINE_HEADER, source, offset, n);
        controlLength = at + INLINE_HEADER + n;
        controlCarriesSend = true;
        remote.nextSend++;
        counters.add(Counter.SENT_INLINE, 1);
        out.set(seq, (int) seq & Notices.SEQ_MASK, 0, 0, false);
        return INLINE;
    }

    @Override
    public void packetBytes(int bytes) {
        if (bytes < MIN_PACKET_BYTES) {
            throw new IllegalArgumentException("a packet carries at least " + MIN_PACKET_BYTES + " bytes: " + bytes);
        }
        packetBytes = bytes;
    }

    @Override
    public boolean inlinePending() {
        return controlCarriesSend;
    }

    @Override
    public void sendFinished(long sequence, boolean large, MpStatus status, long length, int paths) {
        if (status == MpStatus.SUCCESS) {
            if (large && !placements.add(sequence, length, paths)) {
                // bounded by the peer's receives; more means our own bookkeeping is broken
                throw new IllegalStateException("placement notice queue overflow");
            }
        } else {
            notice(SEND_FAILED, sequence, length, (large ? 0 : FLAG_SMALL) | REASON_FAILED);
        }
    }

    @Override
    public boolean nextNotice(PlacementNotice out) {
        if (!started || closed) {
            return false;
        }
        if (nextControl(out)) {
            return true;
        }
        if (!placements.ready()) {
            return false;
        }
        if (credits <= 1) { // the last credit is the control messages' (class comment)
            counters.add(Counter.CREDIT_WAIT, 1);
            return false;
        }
        credits--;
        placements.take(out);
        counters.add(Counter.NOTICE_SENT, 1);
        return true;
    }

    /** @return true if records wait for a control message: reports, advertisements, enough credits */
    private boolean controlDue() {
        return advertisementsDue() || !notices.isEmpty() || creditsToReturn >= creditThreshold;
    }

    /**
     * Receives not yet advertised are due once the peer may hold fewer than half of those posted
     * and not complete (it can send into no more than were advertised and are not complete here),
     * or once a large message completed since the last advertisement. Until then they wait for a
     * control message that goes anyway (credits, reports, a small message riding in it): with
     * receives posted ahead, as request-response traffic keeps them (perftest's ib_send_lat keeps
     * up to 512), a message then needs no advertisement packet of its own. A receive posted when
     * none is advertised is due at once; large messages keep the advertisement per message, which
     * their throughput needs and their size hides.
     */
    private boolean advertisementsDue() {
        if (advertisedSeq == postSeq) {
            return false;
        }
        long held = advertisedSeq - completeSeq;
        return largeSinceAdvertised || held < Math.max(1, (postSeq - completeSeq + 1) / 2);
    }

    /** The control message to post next, if one is due (or failed and is posted again) and may be sent. */
    boolean nextControl(PlacementNotice out) {
        if (controlInFlight) {
            return false;
        }
        if (controlResend) {
            controlResend = false;
        } else if (!controlCarriesSend) { // else composed by reserveInline, not posted yet
            if (!controlDue()) {
                return false;
            }
            if (!controlCredit()) {
                counters.add(Counter.CREDIT_WAIT, 1);
                return false;
            }
            controlLength = beginControl(recordLimit);
        }
        controlInFlight = true;
        placements.control(out, controlLength, controlImm, controlCarriesSend);
        return true;
    }

    /**
     * Takes the next control message's credit and sequence number and writes its records.
     *
     * @param limit bytes the records may take
     * @return bytes written
     */
    private int beginControl(int limit) {
        credits--;
        controlImm = Notices.CONTROL | controlSeq;
        controlSeq = (controlSeq + 1) & Notices.SEQ_MASK;
        counters.add(Counter.CONTROL, 1);
        return composeControl(limit);
    }

    /** @return true if a control message may take a credit now: the last one only if it returns credits */
    private boolean controlCredit() {
        return credits > 1 || credits == 1 && creditsToReturn > 0;
    }

    /**
     * Writes the due records into the control buffer, at most {@code limit} bytes: reports, then
     * credits, then advertisements (those that do not fit stay due).
     */
    private int composeControl(int limit) {
        ByteBuffer body = control.clear().limit(limit);
        while (!notices.isEmpty() && body.remaining() >= NOTICE_BYTES) {
            body.put(notices.headType()).putInt((int) notices.headSeq()).putInt((int) notices.headLength())
                    .put((byte) notices.headExtra());
            notices.removeHead();
        }
        if (creditsToReturn > 0 && body.remaining() >= CREDIT_BYTES) {
            body.put(CREDIT).putInt(creditsToReturn);
            counters.add(Counter.CREDIT, creditsToReturn);
            creditsToReturn = 0;
        }
        int room = (body.remaining() - RECV_POSTED_HEADER) / RECV_POSTED_ENTRY;
        int n = (int) Math.min(Math.min(postSeq - advertisedSeq, room), 0xFFFF);
        if (n > 0) {
            body.put(RECV_POSTED).putShort((short) n);
            for (int k = 0; k < n; k++) {
                int i = receives.index(advertisedSeq);
                body.putInt((int) advertisedSeq).putLong(receives.addr[i]).putInt(receives.rkey[i])
                        .putInt(receives.capacity[i]).put((byte) (receives.writable[i] ? FLAG_WRITABLE : 0));
                advertisedSeq++;
            }
            if (advertisedSeq == postSeq) {
                largeSinceAdvertised = false;
            }
        }
        int len = body.position();
        control.clear();
        return len;
    }

    @Override
    public void noticeFinished(int slot, MpStatus status) {
        if (slot == placements.controlSlot()) {
            if (!controlInFlight) {
                throw new IllegalStateException("no control message in flight");
            }
            controlInFlight = false;
            // a failed one goes again as it is (the peer drops a second copy); FLUSHED: torn down
            controlResend = status != MpStatus.SUCCESS && status != MpStatus.FLUSHED && !closed;
            if (controlResend) {
                counters.add(Counter.CONTROL_RESENT, 1);
            } else {
                controlCarriesSend = false; // the small message in it ended with it
            }
            return;
        }
        long[] n = placements.release(slot, released);
        if (status != MpStatus.SUCCESS && status != MpStatus.FLUSHED && !closed) {
            // the SEND failed at the responder or no path is left: a control message carries the
            // report, and the slot credit the notice was charged goes back with it (FLUSHED: the
            // connection is being torn down, nothing is sent any more)
            counters.add(Counter.NOTICE_FALLBACK, 1);
            notice(SEND_DONE, n[0], n[1], (int) n[2] | FLAG_CREDIT);
        }
    }

    @Override
    public boolean noticesPending() {
        return placements.pending()
                || started && !closed && !controlInFlight && (controlResend || controlCarriesSend || controlDue());
    }

    private void notice(byte type, long seq, long length, int extra) {
        if (!notices.add(type, seq, length, extra)) {
            // bounded by the peer's receives; more means our own bookkeeping is broken
            throw new IllegalStateException("notice queue overflow");
        }
    }

    // ---------------------------------------------------------------- control records

    /**
     * Takes the records of a control message (position..limit); tests hand them in directly.
     *
     * @throws ReassemblyException if they are malformed or break the protocol
     */
    void onControl(ByteBuffer body) throws ReassemblyException {
        try {
            control(body);
        } catch (ReassemblyException e) {
            counters.add(Counter.VIOLATION, 1);
            throw e;
        }
    }

    private void control(ByteBuffer body) throws ReassemblyException {
        if (!started) {
            throw new ReassemblyException("control message before start");
        }
        while (body.hasRemaining()) {
            byte type = body.get();
            switch (type) {
                case RECV_POSTED -> onRecvPosted(body);
                case CREDIT -> {
                    need(body, 4);
                    long n = Integer.toUnsignedLong(body.getInt());
                    if (credits + n > peerSlots) {
                        throw new ReassemblyException("peer returned " + n + " credits, more than it has slots");
                    }
                    credits += (int) n;
                }
                case SEND_DONE -> {
                    need(body, 9);
                    onSendDone(body.getInt(), Integer.toUnsignedLong(body.getInt()), body.get() & 0xFF);
                }
                case SEND_FAILED -> {
                    need(body, 9);
                    onSendFailed(body.getInt(), Integer.toUnsignedLong(body.getInt()), body.get() & 0xFF);
                }
                case INLINE_SEND -> onInlineSend(body);
                default -> throw new ReassemblyException("unknown control record type " + type);
            }
        }
    }

    /**
     * A small message that rode in the control message: copied into its receive buffer. The control
     * message is taken once, so this is its only copy; the sender checked the advertised capacity
     * and charged no credit beyond the control message's.
     */
    private void onInlineSend(ByteBuffer body) throws ReassemblyException {
        need(body, INLINE_HEADER - 1);
        int seq = body.getInt();
        long len = Integer.toUnsignedLong(body.getInt());
        need(body, len);
        int i = slotTarget(seq & 0x7FFF_FFFF, "inline message");
        if (i >= 0 && len > receives.capacity[i]) {
            throw new ReassemblyException("peer sent " + len + " bytes inline for a receive buffer of "
                    + receives.capacity[i]);
        }
        int n = (int) len;
        if (i >= 0) {
            if (n > 0) {
                receives.region[i].put(receives.offset[i], body, body.position(), n);
                counters.add(Counter.COPIED, n);
            }
            counters.add(Counter.SMALL, 1);
            counters.add(Counter.SMALL_INLINE, 1);
            receives.done(i, MpStatus.SUCCESS, n, 1, null);
        }
        body.position(body.position() + n);
    }

    private void onRecvPosted(ByteBuffer body) throws ReassemblyException {
        need(body, 2);
        int n = body.getShort() & 0xFFFF;
        need(body, n * RECV_POSTED_ENTRY);
        for (int k = 0; k < n; k++) {
            int seq = body.getInt();
            long addr = body.getLong();
            int rkey = body.getInt();
            int capacity = body.getInt();
            int flags = body.get() & 0xFF;
            if (seq != (int) remote.nextAdvert) {
                throw new ReassemblyException("receive advertised out of order: " + Integer.toUnsignedString(seq)
                        + ", expected " + remote.nextAdvert);
            }
            if (capacity < 0 || (flags & ~FLAG_WRITABLE) != 0) {
                throw new ReassemblyException("malformed receive advertisement");
            }
            if (remote.full()) {
                throw new ReassemblyException("peer advertised more than " + remote.size() + " receives");
            }
            remote.ensureRoom();
            int i = remote.index(remote.nextAdvert);
            remote.addr[i] = addr;
            remote.rkey[i] = rkey;
            remote.capacity[i] = capacity;
            remote.writable[i] = (flags & FLAG_WRITABLE) != 0;
            remote.nextAdvert++;
        }
    }

    /** @return the table index of an advertised, still posted receive, or -1 if already delivered */
    private int advertisedIndex(int seq) throws ReassemblyException {
        int rel = seq - (int) completeSeq;
        if (rel < 0) {
            return -1;
        }
        if (rel >= advertisedSeq - completeSeq) {
            throw new ReassemblyException("report for receive " + Integer.toUnsignedString(seq)
                    + " which was never advertised");
        }
        return receives.index(completeSeq + rel);
    }

    private void onSendDone(int seq, long len, int flaggedPaths) throws ReassemblyException {
        counters.add(Counter.REPORT_RECEIVED, 1);
        int paths = flaggedPaths & ~FLAG_CREDIT;
        int i = advertisedIndex(seq);
        if ((flaggedPaths & FLAG_CREDIT) != 0 && (i < 0 || receives.state[i] != ReceiveTable.POSTED)) {
            // a failed notice's report, but the notice had landed after all (its credit came back then)
            counters.add(Counter.DUPLICATE, 1);
            return;
        }
        if (i < 0 || receives.state[i] != ReceiveTable.POSTED) {
            throw new ReassemblyException("duplicate placement report for " + Integer.toUnsignedString(seq));
        }
        if (len > receives.capacity[i]) {
            throw new ReassemblyException("peer reports " + len + " bytes placed in a buffer of "
                    + receives.capacity[i]);
        }
        if ((flaggedPaths & FLAG_CREDIT) != 0) {
            // the report of a failed placement notice, which was charged a slot credit
            creditsToReturn++;
        }
        largeSinceAdvertised = true;
        counters.add(Counter.LARGE, 1);
        receives.done(i, MpStatus.SUCCESS, len, paths, null);
    }

    private void onSendFailed(int seq, long len, int flags) throws ReassemblyException {
        int i = advertisedIndex(seq);
        if (i < 0 || receives.state[i] != ReceiveTable.POSTED) {
            // a small message that arrived although its sender saw it fail: already delivered
            counters.add(Counter.DUPLICATE, 1);
            return;
        }
        if ((flags & FLAG_SMALL) != 0) {
            // the sender charged a slot credit that no SEND will consume
            creditsToReturn++;
        }
        counters.add(Counter.FAILED, 1);
        switch (flags & 0x0F) {
            case REASON_TOO_LONG -> receives.done(i, MpStatus.LOCAL_LENGTH_ERROR, len, 0, "message of " + len
                    + " bytes is longer than the receive buffer (" + receives.capacity[i] + ")");
            case REASON_NOT_WRITABLE -> receives.done(i, MpStatus.LOCAL_PROTECTION_ERROR, len, 0,
                    "large message needs a receive region registered with REMOTE_WRITE");
            case REASON_FAILED -> receives.done(i, MpStatus.REMOTE_OPERATION_ERROR, len, 0,
                    "the sender failed the message");
            default -> throw new ReassemblyException("unknown failure reason " + flags);
        }
    }

    private static void need(ByteBuffer body, long bytes) throws ReassemblyException {
        if (body.remaining() < bytes) {
            throw new ReassemblyException("truncated control record");
        }
    }

    /** @return slot credits held for the peer's slots (tests) */
    int credits() {
        return credits;
    }

    /** @return slots the peer charged that were reposted and not yet credited back (tests) */
    int creditsToReturn() {
        return creditsToReturn;
    }

    @Override
    public ReassemblyCounters counters() {
        return counters;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (sets != null) {
            sets.close();
        } else {
            srq.close();
            slabMr.close();
        }
        placements.close();
    }
}
