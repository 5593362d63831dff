package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;

/**
 * The QP state machine of IBA 10.3 as the soft RNIC enforces it: which transitions exist, which
 * attributes each needs and allows, the range of every attribute, what queryQp reports, and what
 * posting does in each state.
 */
class QpStateMachineTest {
    private ScriptedFabric fabric;
    private Rig rig;
    private IbvQp qp;

    @BeforeEach
    void setUp() throws Exception {
        fabric = new ScriptedFabric("qp-states", 3, 4);
        rig = fabric.rig;
        qp = rig.createQp(rig.pdA, rig.cqA, null, new QpSettings());
    }

    @AfterEach
    void tearDown() {
        fabric.close();
    }

    private static IbvQpAttr init() {
        return new IbvQpAttr().qpState(IbvQpState.INIT).pkeyIndex(0).portNum(1)
                .qpAccessFlags(IbvAccess.LOCAL_WRITE);
    }

    private IbvQpAttr rtr() {
        IbvQpAttr a = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(IbvMtu.MTU_1024)
                .destQpNum(0x123456).rqPsn(0x1ABCDEF).maxDestRdAtomic(SoftQp.MAX_RD_ATOMIC)
                .minRnrTimer(31);
        a.ahAttr().dgid(rig.b.vnics().get(0).address()).sgidIndex(0).udpPort(rig.b.udpPort());
        return a;
    }

    private static IbvQpAttr rts() {
        return new IbvQpAttr().qpState(IbvQpState.RTS).sqPsn(0x1000002).timeout(31).retryCnt(7)
                .rnrRetry(7).maxRdAtomic(SoftQp.MAX_RD_ATOMIC);
    }

    private void refused(IbvQpAttr a, int mask, String why) {
        VerbsException e = assertThrows(VerbsException.class, () -> qp.modifyQp(a, mask), why);
        assertEquals(VerbsException.EINVAL, e.errno(), why);
    }

    private IbvQpAttr query() throws VerbsException {
        IbvQpAttr out = new IbvQpAttr();
        qp.queryQp(out);
        return out;
    }

    @Test
    void resetInitRtrRtsWithEveryAttributeAtItsLimit() throws Exception {
        assertEquals(IbvQpState.RESET, qp.state());
        refused(rts(), IbvQpAttr.MASK_RTS, "RESET -> RTS");
        refused(rtr(), IbvQpAttr.MASK_RTR, "RESET -> RTR");
        refused(init(), IbvQpAttr.MASK_INIT & ~IbvQpAttr.PORT, "INIT without a port");
        refused(init().timeout(1), IbvQpAttr.MASK_INIT | IbvQpAttr.TIMEOUT, "timeout in INIT");
        qp.modifyQp(init(), IbvQpAttr.MASK_INIT);
        assertEquals(IbvQpState.INIT, qp.state());
        qp.modifyQp(init().qpAccessFlags(IbvAccess.ALL), IbvQpAttr.MASK_INIT);
        assertEquals(IbvAccess.ALL, query().qpAccessFlags(), "INIT -> INIT changes access");
        refused(rts(), IbvQpAttr.MASK_RTS, "INIT -> RTS");
        refused(rtr(), IbvQpAttr.MASK_RTR & ~IbvQpAttr.DEST_QPN, "RTR without a dest QPN");
        refused(rtr(), IbvQpAttr.MASK_RTR | IbvQpAttr.PORT, "port at RTR");
        qp.modifyQp(rtr(), IbvQpAttr.MASK_RTR | IbvQpAttr.ACCESS_FLAGS | IbvQpAttr.PKEY_INDEX);
        assertEquals(IbvQpState.RTR, qp.state());
        IbvQpAttr q = query();
        assertEquals(IbvMtu.MTU_1024, q.pathMtu());
        assertEquals(0x123456, q.destQpNum());
        assertEquals(0xABCDEF, q.rqPsn(), "24 bits kept");
        assertEquals(SoftQp.MAX_RD_ATOMIC, q.maxDestRdAtomic());
        assertEquals(31, q.minRnrTimer());
        assertEquals(rig.b.vnics().get(0).address(), q.ahAttr().dgid());
        assertEquals(rig.b.udpPort(), q.ahAttr().udpPort());
        refused(rts(), IbvQpAttr.MASK_RTS & ~IbvQpAttr.SQ_PSN, "RTS without an SQ PSN");
        refused(rts(), IbvQpAttr.MASK_RTS | IbvQpAttr.PATH_MTU, "path MTU at RTS");
        qp.modifyQp(rts().minRnrTimer(3), IbvQpAttr.MASK_RTS | IbvQpAttr.MIN_RNR_TIMER);
        assertEquals(IbvQpState.RTS, qp.state());
        q = query();
        assertEquals(IbvQpState.RTS, q.qpState());
        assertEquals(0x000002, q.sqPsn(), "24 bits kept");
        assertEquals(31, q.timeout());
        assertEquals(7, q.retryCnt());
        assertEquals(7, q.rnrRetry());
        assertEquals(3, q.minRnrTimer());
        assertEquals(SoftQp.MAX_RD_ATOMIC, q.maxRdAtomic());
        qp.modifyQp(new IbvQpAttr().minRnrTimer(5), IbvQpAttr.MIN_RNR_TIMER);
        assertEquals(5, query().minRnrTimer(), "RTS -> RTS without a state bit");
        refused(rts(), IbvQpAttr.MASK_RTS, "RTS -> RTS may not change the SQ PSN");
        refused(rtr(), IbvQpAttr.MASK_RTR, "RTS -> RTR");
        refused(init(), IbvQpAttr.MASK_INIT, "RTS -> INIT");
        refused(new IbvQpAttr().qpState(null), IbvQpAttr.STATE, "no target state");
    }

    @Test
    void everyAttributeOutsideItsRangeIsRefused() throws Exception {
        refused(init().qpAccessFlags(IbvAccess.ALL + 1), IbvQpAttr.MASK_INIT, "access");
        refused(init().portNum(2), IbvQpAttr.MASK_INIT, "port 2");
        refused(init().portNum(0), IbvQpAttr.MASK_INIT, "port 0");
        refused(init().pkeyIndex(1), IbvQpAttr.MASK_INIT, "P_Key index 1");
        qp.modifyQp(init(), IbvQpAttr.MASK_INIT);
        int m = IbvQpAttr.MASK_RTR;
        refused(rtr().pathMtu(null), m, "no path MTU");
        IbvQpAttr noGid = rtr();
        noGid.ahAttr().dgid(null);
        refused(noGid, m, "no dgid");
        IbvQpAttr badIndex = rtr();
        badIndex.ahAttr().sgidIndex(rig.a.vnics().size());
        refused(badIndex, m, "sgid index one past the vNICs");
        IbvQpAttr negativeIndex = rtr();
        negativeIndex.ahAttr().sgidIndex(-1);
        refused(negativeIndex, m, "negative sgid index");
        IbvQpAttr v6 = rtr();
        v6.ahAttr().dgid(InetAddress.getByName("::1"));
        refused(v6, m, "IPv6 peer of an IPv4 vNIC");
        for (int port : new int[] {0, 65536}) {
            IbvQpAttr a = rtr();
            a.ahAttr().udpPort(port);
            refused(a, m, "UDP port " + port);
        }
        refused(rtr().destQpNum(1 << 24), m, "25-bit QPN");
        refused(rtr().maxDestRdAtomic(SoftQp.MAX_RD_ATOMIC + 1), m, "max_dest_rd_atomic");
        refused(rtr().maxDestRdAtomic(-1), m, "negative max_dest_rd_atomic");
        refused(rtr().minRnrTimer(32), m, "min_rnr_timer 32");
        IbvQpAttr edges = rtr().maxDestRdAtomic(0).minRnrTimer(0).destQpNum(0xFFFFFF);
        edges.ahAttr().udpPort(65535);
        qp.modifyQp(edges, m);
        assertEquals(0xFFFFFF, query().destQpNum());
        int r = IbvQpAttr.MASK_RTS;
        refused(rts().timeout(32), r, "timeout 32");
        refused(rts().retryCnt(8), r, "retry_cnt 8");
        refused(rts().rnrRetry(8), r, "rnr_retry 8");
        refused(rts().maxRdAtomic(SoftQp.MAX_RD_ATOMIC + 1), r, "max_rd_atomic");
        refused(rts().maxRdAtomic(-1), r, "negative max_rd_atomic");
        qp.modifyQp(rts().maxRdAtomic(0).timeout(0).retryCnt(0).rnrRetry(0), r);
        assertEquals(IbvQpState.RTS, qp.state());
        assertEquals(0, query().maxRdAtomic());
    }

    @Test
    void postingFollowsTheState() throws Exception {
        Mem m = rig.mem(rig.pdA, 64, IbvAccess.LOCAL_WRITE);
        VerbsException e = assertThrows(VerbsException.class,
                () -> qp.postRecv(Rig.recv(1, m, 0, 8)));
        assertEquals(VerbsException.EINVAL, e.errno(), "receive in RESET");
        assertThrows(VerbsException.class,
                () -> qp.postSend(Rig.wr(1, IbvWrOpcode.SEND, m, 0, 8, null, 0)), "send in RESET");
        qp.modifyQp(init(), IbvQpAttr.MASK_INIT);
        qp.postRecv(Rig.recv(1, m, 0, 8));
        assertThrows(VerbsException.class,
                () -> qp.postSend(Rig.wr(1, IbvWrOpcode.SEND, m, 0, 8, null, 0)), "send in INIT");
        qp.modifyQp(rtr(), IbvQpAttr.MASK_RTR);
        qp.postRecv(Rig.recv(2, m, 8, 8));
        assertThrows(VerbsException.class,
                () -> qp.postSend(Rig.wr(1, IbvWrOpcode.SEND, m, 0, 8, null, 0)), "send in RTR");
        // ERR flushes both receives in order, and later posts complete flushed too
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        assertEquals(IbvQpState.ERR, qp.state());
        qp.postRecv(Rig.recv(3, m, 16, 8));
        qp.postSend(Rig.wr(4, IbvWrOpcode.SEND, m, 0, 8, null, 0));
        List<IbvWc> wcs = Rig.expect(rig.cqA, 4);
        long[] order = new long[4];
        for (int i = 0; i < 4; i++) {
            assertEquals(IbvWcStatus.WR_FLUSH_ERR, wcs.get(i).status());
            assertEquals(qp.qpNum(), wcs.get(i).qpNum());
            order[i] = wcs.get(i).wrId();
        }
        assertEquals(1, order[0]);
        assertEquals(2, order[1]);
        assertTrue(List.of(3L, 4L).contains(order[2]) && order[2] + order[3] == 7);
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE); // ERR -> ERR
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RESET), IbvQpAttr.STATE);
        assertEquals(IbvQpState.RESET, qp.state());
        assertTrue(Rig.quiet(rig.cqA, 50).isEmpty(), "RESET completes nothing");
        qp.modifyQp(init(), IbvQpAttr.MASK_INIT);
        qp.close();
        assertThrows(VerbsException.class, () -> qp.postRecv(Rig.recv(5, m, 0, 8)));
        assertThrows(VerbsException.class,
                () -> qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE));
        assertThrows(VerbsException.class, () -> qp.queryQp(new IbvQpAttr()));
        qp.close(); // idempotent
    }

    @Test
    void resetDiscardsPostedReceivesWithoutCompletions() throws Exception {
        Mem m = rig.mem(rig.pdA, 64, IbvAccess.LOCAL_WRITE);
        qp.modifyQp(init(), IbvQpAttr.MASK_INIT);
        for (int i = 0; i < 3; i++) {
            qp.postRecv(Rig.recv(i, m, 0, 8));
        }
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.RESET), IbvQpAttr.STATE);
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.ERR), IbvQpAttr.STATE);
        assertTrue(Rig.quiet(rig.cqA, 50).isEmpty(), "the receives were gone before ERR");
        IbvRecvWr r = Rig.recv(9, m, 0, 8);
        qp.postRecv(r);
        assertEquals(9, Rig.expect(rig.cqA, 1).get(0).wrId());
    }
}
