package dev.virtuoso.reassembler;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** Counters of one reassembly. Written by the engine thread; other threads see recent values. */
public final class ReassemblyCounters {
    /**
     * One slot per {@link Counter}. The engine thread is the single writer: it stores a count with
     * release semantics rather than as a volatile write, which would cost a full fence per count on
     * the data path; readers see recent values.
     */
    private static final VarHandle VALUES = MethodHandles.arrayElementVarHandle(long[].class);
    private final long[] values = new long[Counter.values().length];

    private long get(Counter c) {
        return (long) VALUES.getAcquire(values, c.ordinal());
    }

    public long smallReceived() {
        return get(Counter.SMALL);
    }

    public long largeReceived() {
        return get(Counter.LARGE);
    }

    public long receivesFailed() {
        return get(Counter.FAILED);
    }

    /**
     * @return small messages written by the sender straight into their MP_RECV buffer (one RDMA
     *     WRITE with immediate; nothing copied), receiver side; part of {@link #smallReceived()}
     * @since 2.2
     */
    public long smallZeroCopy() {
        return get(Counter.SMALL_ZERO_COPY);
    }

    /**
     * @return small messages that arrived in a receive slot and were copied into their MP_RECV
     *     buffer (the buffer is not remotely writable, or a re-send after a failed attempt),
     *     receiver side; part of {@link #smallReceived()}
     * @since 2.2
     */
    public long smallCopied() {
        return get(Counter.SMALL_COPIED);
    }

    /**
     * @return small messages that arrived inside one of the peer's control messages and were copied
     *     into their MP_RECV buffer, receiver side; part of {@link #smallReceived()}
     * @since 3.1
     */
    public long smallInline() {
        return get(Counter.SMALL_INLINE);
    }

    /**
     * @return small MP_SENDs this side carried inside a control message that was due anyway (one
     *     SEND for both), sender side
     * @since 3.1
     */
    public long sentInline() {
        return get(Counter.SENT_INLINE);
    }

    /** @return bytes copied from slots (and control messages) into MP_RECV buffers */
    public long bytesCopied() {
        return get(Counter.COPIED);
    }

    /** @return small messages or reports for a sequence already placed (re-sent after a path failure), dropped */
    public long duplicates() {
        return get(Counter.DUPLICATE);
    }

    /** @return slot receive completions with an error status */
    public long slotErrors() {
        return get(Counter.SLOT_ERROR);
    }

    /** @return control messages (advertisements, credits, reports) sent on the paths, each once */
    public long controlSent() {
        return get(Counter.CONTROL);
    }

    /**
     * @return control messages of the peer taken (duplicates not counted)
     * @since 3.0
     */
    public long controlReceived() {
        return get(Counter.CONTROL_RECEIVED);
    }

    /**
     * @return control messages posted again after their SEND failed
     * @since 3.0
     */
    public long controlResent() {
        return get(Counter.CONTROL_RESENT);
    }

    public long creditsReturned() {
        return get(Counter.CREDIT);
    }

    /** @return times an MP_SEND had to wait for a slot credit */
    public long sendsWaitingForCredit() {
        return get(Counter.CREDIT_WAIT);
    }

    /**
     * @return placement notices of large MP_SENDs taken for posting on a path (sender side)
     * @since 2.1
     */
    public long noticesSent() {
        return get(Counter.NOTICE_SENT);
    }

    /**
     * @return placement notices that arrived on a path and completed a receive (receiver side)
     * @since 2.1
     */
    public long noticesReceived() {
        return get(Counter.NOTICE_RECEIVED);
    }

    /**
     * @return placement notices whose SEND failed and whose placement a control message reports
     *     instead (sender side)
     * @since 2.1
     */
    public long noticeFallbacks() {
        return get(Counter.NOTICE_FALLBACK);
    }

    /**
     * @return placement reports (SEND_DONE records) that arrived in a control message (receiver
     *     side; only the fallback of a failed notice sends them)
     * @since 2.1
     */
    public long placementReportsReceived() {
        return get(Counter.REPORT_RECEIVED);
    }

    /**
     * @return completions and control messages of the peer that broke the protocol (each drops the
     *     peer: the engine fails the connection)
     * @since 2.1
     */
    public long violations() {
        return get(Counter.VIOLATION);
    }

    /** Engine-thread increments (single writer). */
    public void add(Counter c, long n) {
        int i = c.ordinal();
        VALUES.setRelease(values, i, values[i] + n);
    }

    /** Names for {@link #add}. */
    public enum Counter {
        SMALL, LARGE, FAILED, COPIED, DUPLICATE, SLOT_ERROR, CONTROL, CREDIT, CREDIT_WAIT,
        /** @since 2.1 */
        NOTICE_SENT,
        /** @since 2.1 */
        NOTICE_RECEIVED,
        /** @since 2.1 */
        NOTICE_FALLBACK,
        /** @since 2.1 */
        REPORT_RECEIVED,
        /** @since 2.1 */
        VIOLATION,
        /** @since 2.2 */
        SMALL_ZERO_COPY,
        /** @since 2.2 */
        SMALL_COPIED,
        /** @since 3.0 */
        CONTROL_RECEIVED,
        /** @since 3.0 */
        CONTROL_RESENT,
        /** @since 3.1 */
        SMALL_INLINE,
        /** @since 3.1 */
        SENT_INLINE
    }

    @Override
    public String toString() {
        return "ReassemblyCounters[small=" + get(Counter.SMALL) + ", large=" + get(Counter.LARGE) + ", failed="
                + get(Counter.FAILED) + ", copied=" + get(Counter.COPIED) + ", duplicates=" + get(Counter.DUPLICATE)
                + ", slotErrors=" + get(Counter.SLOT_ERROR) + ", control=" + get(Counter.CONTROL)
                + ", controlReceived=" + get(Counter.CONTROL_RECEIVED) + ", controlResent="
                + get(Counter.CONTROL_RESENT) + ", credits=" + get(Counter.CREDIT) + ", creditWaits="
                + get(Counter.CREDIT_WAIT) + ", noticesSent=" + get(Counter.NOTICE_SENT) + ", noticesReceived="
                + get(Counter.NOTICE_RECEIVED) + ", noticeFallbacks=" + get(Counter.NOTICE_FALLBACK)
                + ", reportsReceived=" + get(Counter.REPORT_RECEIVED) + ", violations=" + get(Counter.VIOLATION)
                + ", smallZeroCopy=" + get(Counter.SMALL_ZERO_COPY) + ", smallCopied=" + get(Counter.SMALL_COPIED)
                + ", smallInline=" + get(Counter.SMALL_INLINE) + ", sentInline=" + get(Counter.SENT_INLINE) + "]";
    }
}
