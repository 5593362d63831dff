package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.verbs.soft.packet.Aeth;
import dev.virtuoso.verbs.soft.packet.RcOpcode;
import dev.virtuoso.verbs.soft.packet.RocePacket;

/**
 * Messages spread over two SGEs whose boundary is not a packet boundary: the requester gathers a
 * WRITE's packets from both, scatters READ responses into both, and the responder scatters a
 * SEND into a two-SGE receive; every byte lands at its place and none beyond.
 */
class ScatterGatherTest {
    private static final int MTU = RawPeer.MTU;
    private RawPeer peer;

    @AfterEach
    void tearDown() {
        if (peer != null) {
            peer.close();
        }
    }

    private void open() throws Exception {
        peer = new RawPeer(b -> b, new IbvQpAttr().sqPsn(0).timeout(0).retryCnt(0).rnrRetry(0)
                .maxRdAtomic(1), 0, 1, 1, false);
    }

    private static IbvSendWr twoSges(long id, IbvWrOpcode op, IbvMr a, int aOff, int aLen,
            IbvMr b, int bOff, int bLen) {
        IbvSendWr w = new IbvSendWr(2).wrId(id).opcode(op).sendFlags(IbvSendFlags.SIGNALED)
                .remoteAddr(0x1000).rkey(3).numSge(2);
        w.sge(0).set(a.address() + aOff, aLen, a.lkey());
        w.sge(1).set(b.address() + bOff, bLen, b.lkey());
        return w;
    }

    @Test
    void aWriteIsGatheredFromBothSges() throws Exception {
        open();
        IbvMr a = peer.mr(2 * MTU, IbvAccess.ALL);
        IbvMr b = peer.mr(2 * MTU, IbvAccess.ALL);
        for (int i = 0; i < 2 * MTU; i++) {
            a.buffer().put(i, (byte) 1);
            b.buffer().put(i, (byte) 2);
        }
        a.buffer().put(10, (byte) 11);
        a.buffer().put(609, (byte) 12);
        b.buffer().put(20, (byte) 21);
        b.buffer().put(20 + 899, (byte) 22);
        peer.qp.postSend(twoSges(1, IbvWrOpcode.RDMA_WRITE, a, 10, 600, b, 20, 900));
        RocePacket first = peer.receive();
        assertNotNull(first);
        assertEquals(MTU, first.payloadLength);
        int p = first.payloadOffset;
        assertEquals(11, first.buffer.get(p));
        assertEquals(12, first.buffer.get(p + 599));
        assertEquals(21, first.buffer.get(p + 600));
        assertEquals(2, first.buffer.get(p + MTU - 1));
        RocePacket last = peer.receive();
        assertNotNull(last);
        assertEquals(1500 - MTU, last.payloadLength);
        assertEquals(22, last.buffer.get(last.payloadOffset + 1500 - MTU - 1));
        assertEquals(2, last.buffer.get(last.payloadOffset));
        peer.ack(Aeth.ACK_UNLIMITED, 1);
        IbvWc wc = peer.expect(1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, wc.status());
        assertEquals(1500, wc.byteLen());
    }

    @Test
    void readResponsesAreScatteredIntoBothSges() throws Exception {
        open();
        IbvMr a = peer.mr(2 * MTU, IbvAccess.ALL);
        IbvMr b = peer.mr(2 * MTU, IbvAccess.ALL);
        peer.qp.postSend(twoSges(1, IbvWrOpcode.RDMA_READ, a, 8, 700, b, 16, 800));
        RocePacket req = peer.receive();
        assertNotNull(req);
        assertEquals(1500, req.dmaLength);
        int[] ops = {RcOpcode.READ_RESPONSE_FIRST, RcOpcode.READ_RESPONSE_LAST};
        int[] lens = {MTU, 1500 - MTU};
        for (int k = 0; k < 2; k++) {
            peer.builder.begin(ops[k], false, peer.qp.qpNum(), false, k, lens[k])
                    .aeth(Aeth.ACK_UNLIMITED, 0);
            for (int i = 0; i < lens[k]; i++) {
                peer.builder.buffer().put(peer.builder.payloadOffset() + i,
                        (byte) ((k * MTU + i) % 251));
            }
            peer.send();
        }
        assertEquals(IbvWcStatus.SUCCESS, peer.expect(1).get(0).status());
        assertEquals(0, a.buffer().get(7));
        assertEquals(1, a.buffer().get(9));
        assertEquals((byte) (699 % 251), a.buffer().get(8 + 699));
        assertEquals(0, a.buffer().get(8 + 700), "nothing past the first SGE");
        assertEquals(0, b.buffer().get(15));
        assertEquals((byte) (700 % 251), b.buffer().get(16));
        assertEquals((byte) ((MTU - 1) % 251), b.buffer().get(16 + MTU - 1 - 700));
        assertEquals((byte) (MTU % 251), b.buffer().get(16 + MTU - 700));
        assertEquals((byte) (1499 % 251), b.buffer().get(16 + 799));
        assertEquals(0, b.buffer().get(16 + 800), "nothing past the second SGE");
    }

    @Test
    void aSendIsScatteredIntoATwoSgeReceive() throws Exception {
        open();
        IbvMr a = peer.mr(2 * MTU, IbvAccess.ALL);
        IbvMr b = peer.mr(2 * MTU, IbvAccess.ALL);
        IbvRecvWr r = new IbvRecvWr(2).wrId(9).numSge(2);
        r.sge(0).set(a.address() + 4, 500, a.lkey());
        r.sge(1).set(b.address() + 12, 1000, b.lkey());
        peer.qp.postRecv(r);
        int[] ops = {RcOpcode.SEND_FIRST, RcOpcode.SEND_LAST};
        int[] lens = {MTU, 1400 - MTU};
        for (int k = 0; k < 2; k++) {
            peer.builder.begin(ops[k], false, peer.qp.qpNum(), k == 1, k, lens[k]);
            for (int i = 0; i < lens[k]; i++) {
                peer.builder.buffer().put(peer.builder.payloadOffset() + i,
                        (byte) ((k * MTU + i) % 251));
            }
            peer.send();
        }
        List<IbvWc> wcs = peer.expect(1);
        assertEquals(IbvWcStatus.SUCCESS, wcs.get(0).status());
        assertEquals(1400, wcs.get(0).byteLen());
        assertEquals(0, a.buffer().get(3));
        assertEquals(1, a.buffer().get(5));
        assertEquals((byte) (499 % 251), a.buffer().get(4 + 499));
        assertEquals(0, a.buffer().get(4 + 500));
        assertEquals((byte) (500 % 251), b.buffer().get(12));
        assertEquals((byte) (1399 % 251), b.buffer().get(12 + 899));
        assertEquals(0, b.buffer().get(12 + 900), "nothing past the message");
    }
}
