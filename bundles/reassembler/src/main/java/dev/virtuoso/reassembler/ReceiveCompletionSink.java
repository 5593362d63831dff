package dev.virtuoso.reassembler;

import dev.virtuoso.api.MpStatus;

/** Receives MP_RECV completions, in the order of the peer's MP_SENDs. Engine thread only. */
@FunctionalInterface
public interface ReceiveCompletionSink {

    /**
     * @param wrId the application's identifier of the MP_RECV
     * @param status how it ended
     * @param length message length (also for LOCAL_LENGTH_ERROR)
     * @param paths how many paths carried the message
     * @param detail failure detail, {@code null} on success
     */
    void onReceiveComplete(long wrId, MpStatus status, long length, int paths, String detail);
}
