package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;

/**
 * A UDP QP never gets a path MTU whose datagrams exceed its vNIC's interface MTU: on Java 17 they
 * would leave IP-fragmented without a word, so modify_qp to RTR refuses them with the limit.
 */
class PathMtuLimitTest {

    @Test
    void datagramSizesAndTheLargestFittingMtu() throws Exception {
        InetAddress v4 = InetAddress.getByName("192.0.2.1");
        InetAddress v6 = InetAddress.getByName("2001:db8::1");
        assertEquals(4096 + 36 + 8 + 20, PathMtuLimit.datagramBytes(IbvMtu.MTU_4096, true));
        assertEquals(1024 + 36 + 8 + 40, PathMtuLimit.datagramBytes(IbvMtu.MTU_1024, false));
        assertNull(PathMtuLimit.problem(IbvMtu.MTU_4096, v4, 9000), "jumbo frames carry 4096");
        assertNull(PathMtuLimit.problem(IbvMtu.MTU_4096, v4, 0), "unknown interface MTU: not refused");
        assertNull(PathMtuLimit.problem(IbvMtu.MTU_1024, v4, 1500));
        String p = PathMtuLimit.problem(IbvMtu.MTU_2048, v4, 1500);
        assertTrue(p.contains("MTU 1500") && p.contains("IP-fragmented") && p.contains("at most 1024"), p);
        assertTrue(PathMtuLimit.problem(IbvMtu.MTU_256, v6, 200).contains("no path MTU fits"));
        // at the edge: an interface MTU of exactly the datagram size carries it
        int exact = PathMtuLimit.datagramBytes(IbvMtu.MTU_1024, true);
        assertNull(PathMtuLimit.problem(IbvMtu.MTU_1024, v4, exact));
        String over = PathMtuLimit.problem(IbvMtu.MTU_2048, v4, exact);
        assertTrue(over.contains("use a path MTU of at most 1024 "), over);
        assertTrue(PathMtuLimit.problem(IbvMtu.MTU_1024, v4, exact - 1).contains("at most 512 "));
    }

    @Test
    void udpQpRefusesAPathMtuItsInterfaceCannotCarry() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        SoftVerbsProvider provider = new SoftVerbsProvider(SoftRnicConfig.builder("mtu1500")
                .addressLiterals("127.0.0.31").udpPort(0)
                .interfaceMtu(a -> {
                    asked.incrementAndGet();
                    return 1500;
                }).build());
        try (provider) {
            IbvContext ctx = provider.openDevice("mtu1500");
            IbvPd pd = ctx.allocPd();
            IbvCq cq = ctx.createCq(16, null);
            VerbsException e = assertThrows(VerbsException.class, () -> toRtr(pd, cq, IbvMtu.MTU_4096));
            assertEquals(VerbsException.EINVAL, e.errno());
            assertTrue(e.getMessage().contains("127.0.0.31") && e.getMessage().contains("at most 1024"), e.getMessage());
            assertEquals(IbvQpState.RTR, toRtr(pd, cq, IbvMtu.MTU_1024).state());
            assertTrue(asked.get() > 0, "the device asked for its interface's MTU");
        }
    }

    @Test
    void systemLookupKnowsLoopback() throws Exception {
        int lo = SoftRnicConfig.systemInterfaceMtu(InetAddress.getByName("127.0.0.1"));
        assertTrue(lo >= PathMtuLimit.datagramBytes(IbvMtu.MTU_4096, true), "loopback MTU " + lo);
        assertEquals(0, SoftRnicConfig.systemInterfaceMtu(InetAddress.getByName("192.0.2.77")), "not local");
    }

    private static IbvQp toRtr(IbvPd pd, IbvCq cq, IbvMtu mtu) throws Exception {
        IbvQp qp = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq));
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).qpAccessFlags(IbvAccess.LOCAL_WRITE),
                IbvQpAttr.MASK_INIT);
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(mtu).destQpNum(0x99).rqPsn(1)
                .maxDestRdAtomic(4).minRnrTimer(1);
        rtr.ahAttr().dgid(InetAddress.getByName("127.0.0.32")).udpPort(4791);
        qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        return qp;
    }
}
