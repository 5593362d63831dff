package dev.virtuoso.qpmanager.internal.engine;

import java.nio.ByteBuffer;

import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;

/**
 * Engine-side writer of control frames: a body is written into a preallocated frame buffer, then
 * the whole frame is copied into the control channel's outbound ring. Engine thread only.
 * Bodies are at most {@link #BODY_BYTES}, the protocol's limit; a claim promises
 * {@link #MIN_BODY_BYTES}, more than any frame the engine writes.
 */
final class ControlWriter {
    static final int BODY_BYTES = Protocol.MAX_CONTROL_BODY;
    /** Smallest body capacity a claim offers: more than any frame this side writes (text at most 256 bytes). */
    static final int MIN_BODY_BYTES = 512;
    private final ByteBuffer frame = ByteBuffer.allocateDirect(Protocol.HEADER_BYTES + BODY_BYTES);
    private final ByteBuffer body;
    private ControlChannel channel;
    private boolean wrote;
    private boolean refused;

    ControlWriter() {
        frame.position(Protocol.HEADER_BYTES);
        body = frame.slice();
        frame.clear();
    }

    void attach(ControlChannel c) {
        channel = c;
    }

    /**
     * Starts a frame.
     *
     * @return a buffer to write the body into from position 0 (at least {@link #MIN_BODY_BYTES}
     *     remaining), or {@code null} if the channel cannot take a frame now (try again later)
     */
    ByteBuffer claim() {
        if (channel == null || channel.state() != ControlChannel.OPEN) {
            return null;
        }
        int room = channel.outbound.free() - Protocol.HEADER_BYTES;
        if (room < MIN_BODY_BYTES) {
            refused = true;
            return null;
        }
        body.clear().limit(Math.min(BODY_BYTES, room));
        return body;
    }

    /** Sends the claimed body as a frame of {@code type}. */
    void commit(int type, ByteBuffer b) {
        int len = b.position();
        frame.clear();
        FrameHeader.write(frame, type, len);
        frame.limit(Protocol.HEADER_BYTES + len).position(0);
        if (!channel.offer(frame)) {
            throw new IllegalStateException("claimed room vanished");
        }
        wrote = true;
    }

    /** @return true if a claim found the ring full since the last call (the writer retries on a timer) */
    boolean takeRefused() {
        boolean r = refused;
        refused = false;
        return r;
    }

    /** @return true if frames were written since the last call */
    boolean takeWrote() {
        boolean w = wrote;
        wrote = false;
        return w;
    }
}
