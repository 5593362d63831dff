package dev.virtuoso.qpmanager.internal.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPath;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPathAck;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.AddPathNak;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.PathRef;
import dev.virtuoso.qpmanager.internal.bootstrap.PathMessages.RepairPath;

/** Path control messages: round trips at the field limits, and what is refused. */
class PathMessagesTest {

    private interface Encoder {
        void encode(ByteBuffer out);
    }

    private static ByteBuffer encoded(Encoder e, int extra) {
        ByteBuffer b = ByteBuffer.allocate(512);
        e.encode(b);
        b.put(new byte[extra]);
        return b.flip();
    }

    private static AddPathAck ack(int port, int qpn, int psn, int mtu) throws ProtocolException {
        return AddPathAck.decode(encoded(new AddPathAck(1, port, qpn, psn, mtu)::encode, 0));
    }

    @Test
    void eachMessageRoundTrips() throws Exception {
        AddPath add = new AddPath(-3, InetAddress.getByName("127.0.0.2"), InetAddress.getByName("::1"), 65535,
                0xFF_FFFF, 0, 4096);
        assertEquals(add, AddPath.decode(encoded(add::encode, 0)));
        AddPathAck ack = new AddPathAck(9, 1, 0, 0xFF_FFFF, 256);
        assertEquals(ack, AddPathAck.decode(encoded(ack::encode, 0)));
        AddPathNak nak = new AddPathNak(4, "no room");
        assertEquals(nak, AddPathNak.decode(encoded(nak::encode, 0)));
        RepairPath repair = new RepairPath(2, 0xABCDEF, 4791, 17, 99, 1024);
        assertEquals(repair, RepairPath.decode(encoded(repair::encode, 0)));
        assertEquals(new PathRef(12), PathRef.decode(encoded(new PathRef(12)::encode, 0)));
    }

    @Test
    void trailingBytesAreRefused() throws Exception {
        AddPath add = new AddPath(1, InetAddress.getByName("127.0.0.2"), InetAddress.getByName("127.0.0.3"), 1, 1, 1,
                1024);
        assertThrows(ProtocolException.class, () -> AddPath.decode(encoded(add::encode, 1)));
        assertThrows(ProtocolException.class,
                () -> AddPathAck.decode(encoded(new AddPathAck(1, 1, 1, 1, 1024)::encode, 1)));
        assertThrows(ProtocolException.class, () -> AddPathNak.decode(encoded(new AddPathNak(1, "x")::encode, 1)));
        assertThrows(ProtocolException.class,
                () -> RepairPath.decode(encoded(new RepairPath(1, 1, 1, 1, 1, 1024)::encode, 1)));
        assertThrows(ProtocolException.class, () -> PathRef.decode(encoded(new PathRef(1)::encode, 1)));
    }

    @Test
    void portsQpnsPsnsAndMtusOutOfRangeAreRefused() throws Exception {
        assertThrows(ProtocolException.class, () -> ack(0, 1, 1, 1024));
        assertThrows(ProtocolException.class, () -> ack(65536, 1, 1, 1024));
        assertThrows(ProtocolException.class, () -> ack(1, 0x100_0000, 1, 1024));
        assertThrows(ProtocolException.class, () -> ack(1, 1, 0x100_0000, 1024));
        assertThrows(ProtocolException.class, () -> ack(1, 1, 1, 128));
        assertThrows(ProtocolException.class, () -> ack(1, 1, 1, 8192));
        assertThrows(ProtocolException.class, () -> ack(1, 1, 1, 1000), "not a power of two");
        assertEquals(512, ack(1, 1, 1, 512).mtu());
        assertThrows(ProtocolException.class,
                () -> RepairPath.decode(encoded(new RepairPath(1, 0x100_0000, 1, 1, 1, 1024)::encode, 0)));
        assertThrows(ProtocolException.class, () -> PathRef.decode(encoded(new PathRef(-1)::encode, 0)));
    }
}
