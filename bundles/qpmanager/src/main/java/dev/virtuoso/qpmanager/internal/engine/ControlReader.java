package dev.virtuoso.qpmanager.internal.engine;

import java.nio.ByteBuffer;

import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;

/**
 * Engine-side parser of control frames from the inbound ring; validates every header. The body
 * buffer starts at {@link #INITIAL_BODY_BYTES} and grows (up to the protocol's largest body) to the
 * largest frame seen: control frames are mostly small.
 */
final class ControlReader {
    static final int INITIAL_BODY_BYTES = 256;
    private final ByteBuffer header = ByteBuffer.allocate(Protocol.HEADER_BYTES);
    private ByteBuffer body = ByteBuffer.allocateDirect(INITIAL_BODY_BYTES);

    /**
     * @param in the inbound ring
     * @return the type of the next complete frame, its body in {@link #body()}, or -1 if none is
     *     complete yet
     * @throws ProtocolException for a malformed header
     */
    int next(ByteRing in) throws ProtocolException {
        if (in.readable() < Protocol.HEADER_BYTES) {
            return -1;
        }
        header.clear();
        in.peek(0, header, Protocol.HEADER_BYTES);
        int len = FrameHeader.check(header, 0, Protocol.MAX_CONTROL_BODY);
        if (in.readable() < Protocol.HEADER_BYTES + len) {
            return -1;
        }
        if (len > body.capacity()) {
            body = ByteBuffer.allocateDirect(Math.min(Protocol.MAX_CONTROL_BODY, Integer.highestOneBit(len - 1) << 1));
        }
        body.clear();
        in.peek(Protocol.HEADER_BYTES, body, len);
        body.flip();
        in.commitRead(Protocol.HEADER_BYTES + len);
        return FrameHeader.type(header, 0);
    }

    /** @return the body of the frame returned by the last {@link #next} */
    ByteBuffer body() {
        return body;
    }
}
