package dev.virtuoso.reassembler;

import java.nio.ByteBuffer;

/**
 * The control channel towards the peer's reassembly, as the QP manager offers it. Engine thread
 * only.
 */
public interface ReassemblyOutbox {

    /**
     * Starts a message.
     *
     * @return a buffer to write the message body into from position 0 (at least
     *     {@link #MIN_BODY_BYTES} remaining), or {@code null} if the channel cannot take a message
     *     now (try again in a later duty cycle)
     */
    ByteBuffer claim();

    /**
     * Sends what was written into the claimed buffer (position 0 up to its position).
     *
     * @param body the buffer returned by {@link #claim()}
     */
    void commit(ByteBuffer body);

    /** Smallest body capacity a claim offers. */
    int MIN_BODY_BYTES = 1024;
}
