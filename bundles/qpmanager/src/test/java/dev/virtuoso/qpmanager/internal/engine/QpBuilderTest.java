package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * {@link QpBuilder} against recording verbs objects: the attributes and masks of each QP state
 * change, the receive side's hooks, and clean-up when a step fails.
 */
class QpBuilderTest {
    private final List<String> calls = new ArrayList<>();
    private final List<IbvQpAttr> attrs = new ArrayList<>();
    private final List<Integer> masks = new ArrayList<>();
    private RuntimeException modifyFails;
    private VerbsException modifyRefuses;

    private IbvQp qp() {
        return (IbvQp) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {IbvQp.class},
                (p, m, args) -> switch (m.getName()) {
                    case "modifyQp" -> {
                        if (modifyFails != null) {
                            throw modifyFails;
                        }
                        if (modifyRefuses != null) {
                            throw modifyRefuses;
                        }
                        attrs.add((IbvQpAttr) args[0]);
                        masks.add((Integer) args[1]);
                        calls.add("modify " + ((IbvQpAttr) args[0]).qpState());
                        yield null;
                    }
                    case "close" -> {
                        calls.add("close");
                        yield null;
                    }
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    case "toString" -> "qp";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private Reassembly receives(IbvQpInitAttr[] seen) {
        return (Reassembly) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Reassembly.class},
                (p, m, args) -> {
                    switch (m.getName()) {
                        case "configureQp" -> {
                            seen[0] = (IbvQpInitAttr) args[0];
                            calls.add("configure");
                        }
                        case "attachQp" -> calls.add("attach");
                        case "detachQp" -> calls.add("detach");
                        default -> throw new UnsupportedOperationException(m.getName());
                    }
                    return null;
                });
    }

    private IbvPd pd(IbvQp qp, IbvQpInitAttr[] created) {
        return (IbvPd) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {IbvPd.class},
                (p, m, args) -> {
                    if (!m.getName().equals("createQp")) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    created[0] = (IbvQpInitAttr) args[0];
                    calls.add("create");
                    return qp;
                });
    }

    private static IbvCq cq() {
        return (IbvCq) Proxy.newProxyInstance(QpBuilderTest.class.getClassLoader(), new Class<?>[] {IbvCq.class},
                (p, m, args) -> switch (m.getName()) {
                    case "hashCode" -> System.identityHashCode(p);
                    case "equals" -> p == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void createMakesAnRcQpOnTheSharedCqInInitWithItsReceives() throws Exception {
        IbvQp qp = qp();
        IbvCq cq = cq();
        IbvQpInitAttr[] configured = new IbvQpInitAttr[1];
        IbvQpInitAttr[] created = new IbvQpInitAttr[1];
        assertSame(qp, QpBuilder.create(pd(qp, created), cq, receives(configured), 33));
        assertEquals(List.of("configure", "create", "modify INIT", "attach"), calls);
        IbvQpInitAttr init = created[0];
        assertSame(init, configured[0], "the receive side configured the attributes the QP was made with");
        assertSame(cq, init.sendCq());
        assertSame(cq, init.recvCq());
        assertEquals(33, init.maxSendWr());
        assertEquals(1, init.maxSendSge());
        assertEquals(1, init.maxRecvSge());
        assertEquals(1, init.maxRecvWr());
        IbvQpAttr a = attrs.get(0);
        assertEquals(IbvQpAttr.MASK_INIT, masks.get(0));
        assertEquals(0, a.pkeyIndex());
        assertEquals(1, a.portNum());
        assertEquals(IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ, a.qpAccessFlags());
    }

    @Test
    void aFailedStepDestroysTheQpAndDetachesIt() {
        IbvQpInitAttr[] seen = new IbvQpInitAttr[1];
        modifyRefuses = new VerbsException(22, "refused");
        VerbsException e = assertThrows(VerbsException.class,
                () -> QpBuilder.create(pd(qp(), seen), cq(), receives(seen), 8));
        assertSame(modifyRefuses, e);
        assertEquals(List.of("configure", "create", "close", "detach"), calls);
        calls.clear();
        modifyRefuses = null;
        modifyFails = new IllegalStateException("broken");
        assertSame(modifyFails, assertThrows(IllegalStateException.class,
                () -> QpBuilder.create(pd(qp(), seen), cq(), receives(seen), 8)));
        assertEquals(List.of("configure", "create", "close", "detach"), calls);
    }

    @Test
    void connectMovesThroughRtrToRtsWithThePeersNumbers() throws Exception {
        InetAddress local = InetAddress.getByName("10.0.1.1");
        InetAddress remote = InetAddress.getByName("10.0.2.1");
        PathSlot slot = new PathSlot(local, remote, 3, qp(), 0x123, 64, null);
        slot.remoteQpn = 0x456;
        slot.remotePsn = 0x789;
        slot.remoteUdpPort = 4792;
        slot.mtu = 1024;
        QpBuilder.connect(slot, ConnectOptions.builder().ackTimeout(14).retryCount(5).rnrRetry(6).build());
        assertEquals(List.of("modify RTR", "modify RTS"), calls);
        IbvQpAttr rtr = attrs.get(0);
        assertEquals(IbvQpAttr.MASK_RTR, masks.get(0));
        assertEquals(IbvMtu.ofBytes(1024), rtr.pathMtu());
        assertEquals(0x456, rtr.destQpNum());
        assertEquals(0x789, rtr.rqPsn());
        assertEquals(QpBuilder.RD_ATOMIC, rtr.maxDestRdAtomic());
        assertEquals(12, rtr.minRnrTimer());
        assertEquals(remote, rtr.ahAttr().dgid());
        assertEquals(3, rtr.ahAttr().sgidIndex());
        assertEquals(4792, rtr.ahAttr().udpPort());
        assertEquals((local.hashCode() * 31 + remote.hashCode()) & 0xFFFFF, rtr.ahAttr().flowLabel(),
                "a flow label of the address pair (20 bits)");
        IbvQpAttr rts = attrs.get(1);
        assertEquals(IbvQpAttr.MASK_RTS, masks.get(1));
        assertEquals(14, rts.timeout());
        assertEquals(5, rts.retryCnt());
        assertEquals(6, rts.rnrRetry());
        assertEquals(0x123, rts.sqPsn());
        assertEquals(QpBuilder.RD_ATOMIC, rts.maxRdAtomic());
    }

    @Test
    void theFlowLabelDependsOnTheDirection() throws Exception {
        InetAddress a = InetAddress.getByName("10.0.1.1");
        InetAddress b = InetAddress.getByName("10.0.2.1");
        PathSlot ab = new PathSlot(a, b, 0, qp(), 1, 64, null);
        PathSlot ba = new PathSlot(b, a, 0, qp(), 1, 64, null);
        ab.mtu = 1024;
        ba.mtu = 1024;
        QpBuilder.connect(ab, ConnectOptions.builder().build());
        QpBuilder.connect(ba, ConnectOptions.builder().build());
        int x = attrs.get(0).ahAttr().flowLabel();
        int y = attrs.get(2).ahAttr().flowLabel();
        assertEquals(x & 0xFFFFF, x, "20 bits");
        assertEquals(y & 0xFFFFF, y, "20 bits");
        assertEquals(false, x == y, "one label per direction");
    }

    @Test
    void toErrorMovesTheQpToErrAndIgnoresAQpAlreadyGone() {
        QpBuilder.toError(qp());
        assertEquals(List.of("modify ERR"), calls);
        assertEquals(IbvQpAttr.STATE, masks.get(0));
        assertEquals(IbvQpState.ERR, attrs.get(0).qpState());
        modifyRefuses = new VerbsException(22, "destroyed");
        assertDoesNotThrow(() -> QpBuilder.toError(qp()));
        modifyRefuses = null;
        modifyFails = new IllegalStateException("closed");
        assertDoesNotThrow(() -> QpBuilder.toError(qp()));
    }
}
