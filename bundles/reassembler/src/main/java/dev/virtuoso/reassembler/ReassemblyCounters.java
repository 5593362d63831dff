package dev.virtuoso.reassembler;

/** Counters of one reassembly. Written by the engine thread; other threads see recent values. */
public final class ReassemblyCounters {
    volatile long smallReceived;
    volatile long largeReceived;
    volatile long receivesFailed;
    volatile long bytesCopied;
    volatile long duplicates;
    volatile long slotErrors;
    volatile long controlSent;
    volatile long controlReceived;
    volatile long controlResent;
    volatile long creditsReturned;
    volatile long sendsWaitingForCredit;
    volatile long noticesSent;
    volatile long noticesReceived;
    volatile long noticeFallbacks;
    volatile long placementReportsReceived;
    volatile long violations;
    volatile long smallZeroCopy;
    volatile long smallCopied;
    volatile long smallInline;
    volatile long sentInline;

    public long smallReceived() {
        return smallReceived;
    }

    public long largeReceived() {
        return largeReceived;
    }

    public long receivesFailed() {
        return receivesFailed;
    }

    /**
     * @return small messages written by the sender straight into their MP_RECV buffer (one RDMA
     *     WRITE with immediate; nothing copied), receiver side; part of {@link #smallReceived()}
     * @since 2.2
     */
    public long smallZeroCopy() {
        return smallZeroCopy;
    }

    /**
     * @return small messages that arrived in a receive slot and were copied into their MP_RECV
     *     buffer (the buffer is not remotely writable, or a re-send after a failed attempt),
     *     receiver side; part of {@link #smallReceived()}
     * @since 2.2
     */
    public long smallCopied() {
        return smallCopied;
    }

    /**
     * @return small messages that arrived inside one of the peer's control messages and were copied
     *     into their MP_RECV buffer, receiver side; part of {@link #smallReceived()}
     * @since 3.1
     */
    public long smallInline() {
        return smallInline;
    }

    /**
     * @return small MP_SENDs this side carried inside a control message that was due anyway (one
     *     SEND for both), sender side
     * @since 3.1
     */
    public long sentInline() {
        return sentInline;
    }

    /** @return bytes copied from slots (and control messages) into MP_RECV buffers */
    public long bytesCopied() {
        return bytesCopied;
    }

    /** @return small messages or reports for a sequence already placed (re-sent after a path failure), dropped */
    public long duplicates() {
        return duplicates;
    }

    /** @return slot receive completions with an error status */
    public long slotErrors() {
        return slotErrors;
    }

    /** @return control messages (advertisements, credits, reports) sent on the paths, each once */
    public long controlSent() {
        return controlSent;
    }

    /**
     * @return control messages of the peer taken (duplicates not counted)
     * @since 3.0
     */
    public long controlReceived() {
        return controlReceived;
    }

    /**
     * @return control messages posted again after their SEND failed
     * @since 3.0
     */
    public long controlResent() {
        return controlResent;
    }

    public long creditsReturned() {
        return creditsReturned;
    }

    /** @return times an MP_SEND had to wait for a slot credit */
    public long sendsWaitingForCredit() {
        return sendsWaitingForCredit;
    }

    /**
     * @return placement notices of large MP_SENDs taken for posting on a path (sender side)
     * @since 2.1
     */
    public long noticesSent() {
        return noticesSent;
    }

    /**
     * @return placement notices that arrived on a path and completed a receive (receiver side)
     * @since 2.1
     */
    public long noticesReceived() {
        return noticesReceived;
    }

    /**
     * @return placement notices whose SEND failed and whose placement a control message reports
     *     instead (sender side)
     * @since 2.1
     */
    public long noticeFallbacks() {
        return noticeFallbacks;
    }

    /**
     * @return placement reports (SEND_DONE records) that arrived in a control message (receiver
     *     side; only the fallback of a failed notice sends them)
     * @since 2.1
     */
    public long placementReportsReceived() {
        return placementReportsReceived;
    }

    /**
     * @return completions and control messages of the peer that broke the protocol (each drops the
     *     peer: the engine fails the connection)
     * @since 2.1
     */
    public long violations() {
        return violations;
    }

    /** Engine-thread increments (single writer). */
    public void add(Counter c, long n) {
        switch (c) {
            case SMALL -> smallReceived += n;
            case LARGE -> largeReceived += n;
            case FAILED -> receivesFailed += n;
            case COPIED -> bytesCopied += n;
            case DUPLICATE -> duplicates += n;
            case SLOT_ERROR -> slotErrors += n;
            case CONTROL -> controlSent += n;
            case CONTROL_RECEIVED -> controlReceived += n;
            case CONTROL_RESENT -> controlResent += n;
            case CREDIT -> creditsReturned += n;
            case CREDIT_WAIT -> sendsWaitingForCredit += n;
            case NOTICE_SENT -> noticesSent += n;
            case NOTICE_RECEIVED -> noticesReceived += n;
            case NOTICE_FALLBACK -> noticeFallbacks += n;
            case REPORT_RECEIVED -> placementReportsReceived += n;
            case VIOLATION -> violations += n;
            case SMALL_ZERO_COPY -> smallZeroCopy += n;
            case SMALL_COPIED -> smallCopied += n;
            case SMALL_INLINE -> smallInline += n;
            case SENT_INLINE -> sentInline += n;
            default -> throw new IllegalArgumentException(String.valueOf(c));
        }
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
        return "ReassemblyCounters[small=" + smallReceived + ", large=" + largeReceived + ", failed="
                + receivesFailed + ", copied=" + bytesCopied + ", duplicates=" + duplicates + ", slotErrors="
                + slotErrors + ", control=" + controlSent + ", controlReceived=" + controlReceived + ", controlResent="
                + controlResent + ", credits=" + creditsReturned + ", creditWaits="
                + sendsWaitingForCredit + ", noticesSent=" + noticesSent + ", noticesReceived=" + noticesReceived
                + ", noticeFallbacks=" + noticeFallbacks + ", reportsReceived=" + placementReportsReceived + ", violations="
                + violations + ", smallZeroCopy=" + smallZeroCopy + ", smallCopied=" + smallCopied + ", smallInline=" + smallInline + ", sentInline=" + sentInline + "]";
    }
}
