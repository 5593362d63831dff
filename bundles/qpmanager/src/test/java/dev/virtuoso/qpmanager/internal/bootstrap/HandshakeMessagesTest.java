package dev.virtuoso.qpmanager.internal.bootstrap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import org.junit.jupiter.api.Test;

import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Accept;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Challenge;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Connect;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Hello;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathAnswer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathOffer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ScratchRegion;

/** Handshake bodies without a socket: round trips, counts at their edges, flags and trailing bytes. */
class HandshakeMessagesTest {
    private static final ReceiveParams PARAMS = new ReceiveParams(64, 8, 1024, 2048,
            new ScratchRegion(0x1000, 9, 4096));

    private static ByteBuffer encoded(Consumer<ByteBuffer> writer, int trailing) {
        ByteBuffer b = ByteBuffer.allocate(Protocol.MAX_HANDSHAKE_BODY);
        writer.accept(b);
        b.put(new byte[trailing]);
        return b.flip();
    }

    private static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) value);
        return b;
    }

    private static InetAddress ip(int last) throws UnknownHostException {
        return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
    }

    private static List<InetAddress> vnics(int n) throws UnknownHostException {
        List<InetAddress> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(ip(i + 1));
        }
        return l;
    }

    @Test
    void helloCarriesTheNonceAndTheSecretFlag() throws Exception {
        Hello with = Hello.decode(encoded(new Hello(filled(32, 7), true)::encode, 0));
        assertArrayEquals(filled(32, 7), with.nonce());
        assertTrue(with.hasSecret());
        ByteBuffer b = encoded(new Hello(filled(32, 7), false)::encode, 0);
        assertEquals(33, b.remaining());
        assertEquals(0, b.get(32), "no secret: flag 0 on the wire");
        assertFalse(Hello.decode(b).hasSecret());
        assertThrows(ProtocolException.class, () -> Hello.decode(encoded(new Hello(filled(32, 7), true)::encode, 1)));
        ByteBuffer badFlag = encoded(new Hello(filled(32, 7), true)::encode, 0);
        badFlag.put(32, (byte) 2);
        ProtocolException e = assertThrows(ProtocolException.class, () -> Hello.decode(badFlag));
        assertTrue(e.getMessage().contains("flag"), e.getMessage());
    }

    @Test
    void challengeRoundTripsWithAndWithoutAProof() throws Exception {
        Challenge open = new Challenge(filled(32, 1), null, vnics(2));
        ByteBuffer b = encoded(open::encode, 0);
        assertEquals(32 + 1 + 1 + 2 * 5, b.remaining(), "no proof bytes without authentication");
        Challenge o = Challenge.decode(b);
        assertFalse(o.authRequired());
        assertNull(o.mac());
        assertEquals(vnics(2), o.vnics());
        assertArrayEquals(filled(32, 1), o.nonce());

        Challenge auth = Challenge.decode(encoded(new Challenge(filled(32, 1), filled(32, 2), List.of())::encode, 0));
        assertTrue(auth.authRequired());
        assertArrayEquals(filled(32, 2), auth.mac());
        assertEquals(List.of(), auth.vnics(), "a server may advertise no vNIC");
        assertThrows(ProtocolException.class,
                () -> Challenge.decode(encoded(new Challenge(filled(32, 1), null, vnics(1))::encode, 1)));
    }

    @Test
    void challengeVnicCountStopsAtMaxPaths() throws Exception {
        Challenge full = new Challenge(filled(32, 1), null, vnics(Protocol.MAX_PATHS));
        assertEquals(Protocol.MAX_PATHS, Challenge.decode(encoded(full::encode, 0)).vnics().size());
        ByteBuffer over = encoded(new Challenge(filled(32, 1), null, vnics(Protocol.MAX_PATHS + 1))::encode, 0);
        ProtocolException e = assertThrows(ProtocolException.class, () -> Challenge.decode(over));
        assertTrue(e.getMessage().contains("count out of range"), e.getMessage());
    }

    @Test
    void receiveParamsRoundTripAndRefuseOutOfRangeSizes() throws Exception {
        assertEquals(PARAMS, ReceiveParams.decode(encoded(PARAMS::encode, 0)));
        ReceiveParams edges = new ReceiveParams(HandshakeMessages.MAX_RECEIVES, HandshakeMessages.MAX_SLOTS,
                HandshakeMessages.MAX_SLOT_BYTES, 256);
        assertEquals(edges, ReceiveParams.decode(encoded(edges::encode, 0)));
        assertEquals(new ReceiveParams(1, 3, 64, 4096), ReceiveParams.decode(encoded(new ReceiveParams(1, 3, 64,
                4096)::encode, 0)));
        // at least 3 slots of 64 bytes: the reassembly's control messages need them
        int[][] bad = {{0, 3, 64, 1024}, {HandshakeMessages.MAX_RECEIVES + 1, 3, 64, 1024}, {1, 2, 64, 1024},
            {1, HandshakeMessages.MAX_SLOTS + 1, 64, 1024}, {1, 3, 63, 1024}, {1, 3, HandshakeMessages.MAX_SLOT_BYTES + 1,
                1024}, {1, 3, 64, 128}, {1, 3, 64, 8192}, {1, 3, 64, 768}};
        for (int[] p : bad) {
            ReceiveParams r = new ReceiveParams(p[0], p[1], p[2], p[3]);
            assertThrows(ProtocolException.class, () -> ReceiveParams.decode(encoded(r::encode, 0)),
                    java.util.Arrays.toString(p));
        }
    }

    @Test
    void withScratchKeepsTheSizesAndReplacesTheRegion() {
        ScratchRegion s = new ScratchRegion(0x2000, 3, 512);
        ReceiveParams p = new ReceiveParams(5, 6, 7, 1024).withScratch(s);
        assertEquals(new ReceiveParams(5, 6, 7, 1024, s), p);
        assertSame(ScratchRegion.NONE, new ReceiveParams(5, 6, 7, 1024, null).scratch(), "null means none");
    }

    @Test
    void aScratchRegionOfExactlyTheMaximumIsAccepted() throws Exception {
        ScratchRegion max = new ScratchRegion(0x1000, 1, HandshakeMessages.MAX_SCRATCH_BYTES);
        assertEquals(max, ScratchRegion.decode(encoded(max::encode, 0)));
    }

    @Test
    void connectRoundTripsEveryPathAndTheProof() throws Exception {
        List<PathOffer> offers = List.of(new PathOffer(ip(1), ip(2), 4791, 0xFF_FFFF, 0),
                new PathOffer(ip(3), InetAddress.getByName("::1"), 65535, 1, 0xFF_FFFF));
        Connect withProof = new Connect(filled(32, 4), PARAMS, offers);
        Connect c = Connect.decode(encoded(withProof::encode, 0));
        assertArrayEquals(filled(32, 4), c.mac());
        assertEquals(PARAMS, c.params());
        assertEquals(offers, c.paths());
        Connect open = Connect.decode(encoded(new Connect(null, PARAMS, offers.subList(0, 1))::encode, 0));
        assertNull(open.mac());
        assertEquals(offers.subList(0, 1), open.paths());
        assertThrows(ProtocolException.class, () -> Connect.decode(encoded(withProof::encode, 1)), "trailing");
        assertThrows(ProtocolException.class, () -> Connect.decode(encoded(new Connect(null, PARAMS,
                List.of())::encode, 0)), "a CONNECT offers at least one path");
        PathOffer badPort = new PathOffer(ip(1), ip(2), 0, 1, 1);
        assertThrows(ProtocolException.class,
                () -> Connect.decode(encoded(new Connect(null, PARAMS, List.of(badPort))::encode, 0)));
        PathOffer badQpn = new PathOffer(ip(1), ip(2), 1, 0x100_0000, 1);
        assertThrows(ProtocolException.class,
                () -> Connect.decode(encoded(new Connect(null, PARAMS, List.of(badQpn))::encode, 0)));
        PathOffer badPsn = new PathOffer(ip(1), ip(2), 1, 1, 0x100_0000);
        assertThrows(ProtocolException.class,
                () -> Connect.decode(encoded(new Connect(null, PARAMS, List.of(badPsn))::encode, 0)));
    }

    @Test
    void connectCarriesUpToMaxPathsOffers() throws Exception {
        List<PathOffer> offers = new ArrayList<>();
        for (int i = 0; i < Protocol.MAX_PATHS; i++) {
            offers.add(new PathOffer(ip(1), ip(2), 1 + i, i, i));
        }
        assertEquals(offers, Connect.decode(encoded(new Connect(null, PARAMS, offers)::encode, 0)).paths());
        offers.add(new PathOffer(ip(1), ip(2), 99, 99, 99));
        assertThrows(ProtocolException.class,
                () -> Connect.decode(encoded(new Connect(null, PARAMS, offers)::encode, 0)));
    }

    @Test
    void acceptRoundTripsEveryAnswer() throws Exception {
        List<PathAnswer> answers = List.of(new PathAnswer(1, 0xFF_FFFF, 0), new PathAnswer(65535, 0, 0xFF_FFFF));
        Accept a = Accept.decode(encoded(new Accept(PARAMS, answers)::encode, 0));
        assertEquals(PARAMS, a.params());
        assertEquals(answers, a.paths());
        assertThrows(ProtocolException.class, () -> Accept.decode(encoded(new Accept(PARAMS, answers)::encode, 1)));
        assertThrows(ProtocolException.class, () -> Accept.decode(encoded(new Accept(PARAMS, List.of())::encode, 0)));
        assertThrows(ProtocolException.class, () -> Accept.decode(encoded(new Accept(PARAMS,
                List.of(new PathAnswer(65536, 1, 1)))::encode, 0)));
        assertThrows(ProtocolException.class, () -> Accept.decode(encoded(new Accept(PARAMS,
                List.of(new PathAnswer(1, -1, 1)))::encode, 0)));
        assertThrows(ProtocolException.class, () -> Accept.decode(encoded(new Accept(PARAMS,
                List.of(new PathAnswer(1, 1, -1)))::encode, 0)));
    }

    @Test
    void typeNamesNameEveryFrame() {
        String[] names = {null, "HELLO", "CHALLENGE", "CONNECT", "ACCEPT", "READY", "ERROR"};
        for (int t = 1; t <= 6; t++) {
            assertEquals(names[t], Protocol.typeName(t));
        }
        String[] control = {"PING", "DISCONNECT", "type 18", "ADD_PATH", "ADD_PATH_ACK", "ADD_PATH_NAK",
            "PATH_READY", "REMOVE_PATH", "PATH_DRAINED", "REPAIR_PATH", "REPAIR_ACK", "REPAIR_NAK", "PROBES_DONE"};
        for (int i = 0; i < control.length; i++) {
            assertEquals(control[i], Protocol.typeName(Protocol.PING + i));
        }
        assertEquals("type 99", Protocol.typeName(99));
    }
}
