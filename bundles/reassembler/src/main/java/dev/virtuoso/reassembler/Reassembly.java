package dev.virtuoso.reassembler;

import java.nio.ByteBuffer;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvSrq;
import dev.virtuoso.spi.verbs.IbvWc;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One connection's MP_SEND / MP_RECV state, both directions. Engine thread only; no method blocks
 * and none allocates in steady state. Slot receive WRs carry {@link ReassemblyConfig#wrIdTag()}, the
 * tag the engine assigned ({@link dev.virtuoso.util.WrId}).
 */
@ProviderType
public interface Reassembly extends AutoCloseable {

    /** Result of {@link #reserveSend}: the receiver has not posted (advertised) the buffer yet, or no slot credit. */
    int NOT_READY = 0;
    /**
     * Result of {@link #reserveSend}: send one SEND_WITH_IMM with {@link SendTarget#immData()}, or,
     * if {@link SendTarget#direct()}, one RDMA_WRITE_WITH_IMM of the same immediate straight into
     * the peer's buffer ({@link SendTarget#remoteAddr()}, {@link SendTarget#rkey()}). Either consumes
     * one of the peer's receive slots and was charged one slot credit. A direct attempt that fails
     * must be re-sent as a SEND_WITH_IMM, and only once nothing of the failed attempt can land any
     * more (the decomposition's fence): a late or repeated WRITE could otherwise overwrite the
     * buffer after it was delivered and posted again.
     */
    int SMALL = 1;
    /** Result of {@link #reserveSend}: write chunks to {@link SendTarget#remoteAddr()}. */
    int LARGE = 2;
    /**
     * Result of {@link #reserveInline}: the message's bytes were copied into the control message
     * that {@link #nextNotice} returns next (with {@link PlacementNotice#carriesSend()}); the MP_SEND
     * ends with that message's SEND, once it is not posted again ({@link #inlinePending()}). It
     * consumes no slot of its own.
     *
     * @since 3.1
     */
    int INLINE = 3;
    /** Result of {@link #reserveSend}: longer than the receive buffer; the peer was told. */
    int TOO_LONG = -1;
    /** Result of {@link #reserveSend}: large, but the receive buffer is not remotely writable; the peer was told. */
    int NOT_WRITABLE = -2;

    /**
     * @return the shared receive queue every path QP must use, or {@code null} if the device has no
     *     SRQ and every path QP has a receive queue of its own (see {@link #configureQp})
     */
    IbvSrq srq();

    /**
     * Sets the receive side of a new path QP's attributes: the SRQ, or, on a device without SRQ, a
     * receive queue of its own deep enough for a full set of small-message slots.
     *
     * @param attr the QP's initial attributes, before {@code createQp}
     * @since 1.1
     */
    void configureQp(IbvQpInitAttr attr);

    /**
     * A path QP was created with {@link #configureQp} and moved to INIT. Without SRQ it gets its own
     * set of slots, posted now; with an SRQ nothing happens. Call before the QP can receive (before
     * RTR).
     *
     * @param qp the new QP
     * @throws dev.virtuoso.spi.verbs.VerbsException if the slot memory cannot be registered or the
     *     slots cannot be posted
     * @since 1.1
     */
    void attachQp(IbvQp qp) throws dev.virtuoso.spi.verbs.VerbsException;

    /**
     * A path QP was destroyed (or failed and is about to be): its slots are no longer reposted, and
     * its slot set is reused once its slots completed. Slot receives already completed on it are
     * still placed, so nothing that arrived is lost. No effect with an SRQ or for unknown QPs.
     *
     * @param qp the QP given to {@link #attachQp}
     * @since 1.1
     */
    void detachQp(IbvQp qp);

    /** @return this side's configuration (sent to the peer in the handshake) */
    ReassemblyConfig config();

    /**
     * Sets the peer's sizes (from the handshake). Call once, before any other method but
     * {@link #srq()}, {@link #configureQp}, {@link #attachQp}, {@link #detachQp} and {@link
     * #packetBytes}. The receive
     * slots are already posted by then: an SRQ's when the reassembly is created, a QP's own set
     * when the QP is attached, so the peer's first small message, which may follow the handshake
     * at once, always finds one.
     *
     * @param peerMaxReceives the peer's {@link ReassemblyConfig#maxReceives()}
     * @param peerSlots the peer's slot count
     * @param peerSlotBytes the peer's slot size
     * @throws dev.virtuoso.spi.verbs.VerbsException from a provider that posts anything here (the
     *     built-in one posts its slots earlier)
     */
    void start(int peerMaxReceives, int peerSlots, int peerSlotBytes) throws dev.virtuoso.spi.verbs.VerbsException;

    /**
     * Accepts an MP_RECV (advertised to the peer in a later control message, {@link #nextNotice}).
     *
     * @param wrId application identifier
     * @param region an engine-owned view of the registered region (absolute indexing is used)
     * @param offset offset of the buffer in the region
     * @param capacity buffer length
     * @param remoteAddr virtual address of the buffer's first byte
     * @param rkey the region's rkey
     * @param remoteWritable whether the region grants remote write (needed for large messages)
     * @return false if {@link ReassemblyConfig#maxReceives()} receives are already posted
     */
    boolean postReceive(long wrId, ByteBuffer region, int offset, int capacity, long remoteAddr, int rkey,
            boolean remoteWritable);

    /**
     * Handles a completion whose wr_id carries this reassembly's {@link ReassemblyConfig#wrIdTag() tag}.
     *
     * @param wc the completion
     * @throws ReassemblyException if the peer broke the protocol
     */
    void onCompletion(IbvWc wc) throws ReassemblyException;

    /**
     * Matches the next MP_SEND with the peer's next receive buffer.
     *
     * @param length message length
     * @param out filled for {@link #SMALL} and {@link #LARGE}
     * @return one of {@link #NOT_READY}, {@link #SMALL}, {@link #LARGE}, {@link #TOO_LONG},
     *     {@link #NOT_WRITABLE}
     */
    int reserveSend(long length, SendTarget out);

    /**
     * Lets the next MP_SEND ride inside a control message, with the records waiting at the time,
     * instead of a SEND or WRITE of its own: one message on the wire for both (the
     * receiver copies it out of the control message's slot). Only a message that {@link
     * #reserveSend} would send {@link #SMALL} qualifies, only while a control message may be sent
     * now, and only if records wait and it fits beside them: in the peer's slot while records are
     * due, in one packet ({@link #packetBytes}) while they wait without being due. Reserves nothing
     * otherwise.
     *
     * @param length message length
     * @param source the message's bytes (absolute indexing), read during this call only
     * @param offset index of the first byte in {@code source}
     * @param out filled for {@link #INLINE}: {@link SendTarget#sequence()}
     * @return {@link #INLINE}, or {@link #NOT_READY} (then use {@link #reserveSend})
     * @since 3.1
     */
    int reserveInline(long length, ByteBuffer source, int offset, SendTarget out);

    /**
     * Sets the payload one packet carries on every path of the connection (the smallest path MTU):
     * a small message rides in a control message that is not due only if it stays one packet
     * ({@link #reserveInline}). Until called, only the peer's slot size bounds it.
     *
     * @param bytes payload bytes per packet, at least 256
     * @throws IllegalArgumentException if {@code bytes} is below 256
     * @since 3.2
     */
    default void packetBytes(int bytes) {
        if (bytes < 256) {
            throw new IllegalArgumentException("a packet carries at least 256 bytes: " + bytes);
        }
    }

    /**
     * @return true while the MP_SEND last reserved {@link #INLINE} has not ended: its control
     *     message is not yet posted, in flight, or to be posted again after its SEND failed
     * @since 3.1
     */
    boolean inlinePending();

    /**
     * An MP_SEND reserved earlier ended: a large one's placement is announced by a notice on a
     * path ({@link #nextNotice}), a failed one is reported failed in a control message. Call it
     * only when every byte is placed and no earlier failed attempt can still land (the
     * decomposition's fence).
     *
     * @param sequence {@link SendTarget#sequence()}
     * @param large whether it was {@link #LARGE}
     * @param status its status
     * @param length its length
     * @param paths paths that carried it
     */
    void sendFinished(long sequence, boolean large, MpStatus status, long length, int paths);

    /**
     * Takes the next message of the reassembly itself that is due, if a slot credit for it is
     * available: a control message (receive advertisements, slot credits, failure reports; one in
     * flight at a time, first) or a placement notice. The caller posts it as one SEND_WITH_IMM,
     * whole on one path (re-posted on another if that path fails), and reports its end with
     * {@link #noticeFinished}. It consumes one of the peer's receive slots, so it is charged a slot
     * credit like a small message. The connection's TCP channel carries none of these.
     *
     * @param out filled when a message is returned
     * @return true if {@code out} holds a message to post
     * @since 2.1
     */
    boolean nextNotice(PlacementNotice out);

    /**
     * A message taken with {@link #nextNotice} ended. If it failed (other than FLUSHED, which means
     * the connection is being torn down), a notice's placement is reported in a control message
     * instead (counted in {@link ReassemblyCounters#noticeFallbacks()}), and a control message is
     * posted again ({@link ReassemblyCounters#controlResent()}).
     *
     * @param slot {@link PlacementNotice#slot()}
     * @param status its status
     * @since 2.1
     */
    void noticeFinished(int slot, MpStatus status);

    /**
     * @return true if placement notices or a control message wait for a slot credit or for
     *     {@link #nextNotice}
     * @since 2.1
     */
    boolean noticesPending();

    /**
     * Delivers the receive completions that are due, in MP_SEND order.
     *
     * @param sink receives them
     * @return completions delivered
     */
    int deliver(ReceiveCompletionSink sink);

    /**
     * Completes every MP_RECV still posted with {@code status}, in posting order (after those
     * already placed).
     *
     * @param sink receives them
     * @param status e.g. FLUSHED
     * @return completions delivered
     */
    int flush(ReceiveCompletionSink sink, MpStatus status);

    /** @return MP_RECVs posted and not yet delivered */
    int receivesInProgress();

    /** @return counters (live view) */
    ReassemblyCounters counters();

    /** Stops reposting slots and releases the slot memory and the SRQ (if any). Idempotent. */
    @Override
    void close();
}
