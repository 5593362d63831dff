package dev.virtuoso.qpmanager.internal.bootstrap;

import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.address;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.end;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.i32;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.range;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.text;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.u24;

import java.net.InetAddress;
import java.nio.ByteBuffer;

/** Bodies of the control frames that add and remove paths of a live connection. */
public final class PathMessages {
    private PathMessages() {
    }

    /** ADD_PATH: the initiator's new QP, to be paired with a new QP of the responder. */
    public record AddPath(int requestId, InetAddress initiator, InetAddress responder, int udpPort, int qpn,
            int psn, int mtu) {
        public void encode(ByteBuffer out) {
            out.putInt(requestId);
            address(out, initiator);
            address(out, responder);
            out.putInt(udpPort).putInt(qpn).putInt(psn).putInt(mtu);
        }

        public static AddPath decode(ByteBuffer in) throws ProtocolException {
            int id = i32(in);
            InetAddress a = address(in);
            InetAddress b = address(in);
            int port = range(in, "udpPort", 1, 65535);
            int qpn = u24(in, "qpn");
            int psn = u24(in, "psn");
            int mtu = readMtu(in);
            end(in, "ADD_PATH");
            return new AddPath(id, a, b, port, qpn, psn, mtu);
        }
    }

    /** ADD_PATH_ACK: the responder's new QP (already in RTS). */
    public record AddPathAck(int requestId, int udpPort, int qpn, int psn, int mtu) {
        public void encode(ByteBuffer out) {
            out.putInt(requestId).putInt(udpPort).putInt(qpn).putInt(psn).putInt(mtu);
        }

        public static AddPathAck decode(ByteBuffer in) throws ProtocolException {
            int id = i32(in);
            int port = range(in, "udpPort", 1, 65535);
            int qpn = u24(in, "qpn");
            int psn = u24(in, "psn");
            int mtu = readMtu(in);
            end(in, "ADD_PATH_ACK");
            return new AddPathAck(id, port, qpn, psn, mtu);
        }
    }

    /** ADD_PATH_NAK: the responder refuses, with a reason. */
    public record AddPathNak(int requestId, String reason) {
        public void encode(ByteBuffer out) {
            out.putInt(requestId);
            Fields.text(out, reason);
        }

        public static AddPathNak decode(ByteBuffer in) throws ProtocolException {
            int id = i32(in);
            String reason = text(in);
            end(in, "ADD_PATH_NAK");
            return new AddPathNak(id, reason);
        }
    }

    /**
     * REPAIR_PATH: the sender replaced its failed QP on a path (named by the old QP number) with a
     * new one, to be paired with a new QP of the receiver.
     */
    public record RepairPath(int requestId, int oldQpn, int udpPort, int qpn, int psn, int mtu) {
        public void encode(ByteBuffer out) {
            out.putInt(requestId).putInt(oldQpn).putInt(udpPort).putInt(qpn).putInt(psn).putInt(mtu);
        }

        public static RepairPath decode(ByteBuffer in) throws ProtocolException {
            int id = i32(in);
            int old = u24(in, "qpn");
            int port = range(in, "udpPort", 1, 65535);
            int qpn = u24(in, "qpn");
            int psn = u24(in, "psn");
            int mtu = readMtu(in);
            end(in, "REPAIR_PATH");
            return new RepairPath(id, old, port, qpn, psn, mtu);
        }
    }

    /**
     * PATH_READY and REMOVE_PATH: names a path by the sender's QP number on it.
     *
     * @param qpn the sender's QP number
     */
    public record PathRef(int qpn) {
        public void encode(ByteBuffer out) {
            out.putInt(qpn);
        }

        public static PathRef decode(ByteBuffer in) throws ProtocolException {
            int qpn = u24(in, "qpn");
            end(in, "path reference");
            return new PathRef(qpn);
        }
    }

    private static int readMtu(ByteBuffer in) throws ProtocolException {
        int mtu = range(in, "mtu", 256, 4096);
        if (Integer.bitCount(mtu) != 1) {
            throw new ProtocolException("mtu must be a power of two: " + mtu);
        }
        return mtu;
    }
}
