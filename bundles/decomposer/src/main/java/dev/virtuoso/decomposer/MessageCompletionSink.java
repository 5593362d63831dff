package dev.virtuoso.decomposer;

import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;

/** Receives the completion of each MP work request. Engine thread only; must not block. */
@FunctionalInterface
public interface MessageCompletionSink {

    /**
     * One MP work request ended.
     *
     * @param wrId the application's identifier
     * @param tag the caller's tag given in {@link MessageSpec#tag}
     * @param opcode the MP operation
     * @param status how it ended
     * @param bytes bytes transferred (the message length on success)
     * @param paths how many distinct paths carried its chunks
     * @param detail failure detail, {@code null} on success
     */
    void onMessageComplete(long wrId, long tag, MpOpcode opcode, MpStatus status, long bytes, int paths,
            String detail);
}
