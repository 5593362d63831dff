package dev.virtuoso.qpmanager.internal.engine;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * Verbs that record what the path manager does with them: QPs that remember their state changes
 * and whether they were closed, a reassembly that records the QPs it is told to forget, and one
 * connection's {@link VerbsResources} over them (opened through an unstarted engine agent). QP
 * creation and connection can be made to fail.
 */
final class ScriptedVerbs implements AutoCloseable {
    static final int UDP_PORT = 4791;

    /** One QP the path manager created. */
    static final class Qp {
        final int qpn;
        final List<IbvQpState> states = new ArrayList<>();
        boolean closed;
        long retransmitted;
        boolean countersFail;
        IbvQp proxy;

        Qp(int qpn) {
            this.qpn = qpn;
        }

        IbvQpState state() {
            return states.isEmpty() ? IbvQpState.RESET : states.get(states.size() - 1);
        }
    }

    final List<Qp> qps = new ArrayList<>();
    final List<Integer> detached = new ArrayList<>();
    final List<Vnic> vnics = new ArrayList<>();
    boolean createFails;
    boolean connectFails;
    private final CountDownLatch channelClosed = new CountDownLatch(1);
    final Reassembly receives = (Reassembly) Proxy.newProxyInstance(Reassembly.class.getClassLoader(),
            new Class<?>[] {Reassembly.class}, (proxy, m, args) -> switch (m.getName()) {
                case "configureQp", "attachQp" -> null;
                case "detachQp" -> {
                    detached.add(((IbvQp) args[0]).qpNum());
                    yield null;
                }
                default -> throw new AssertionError("unexpected " + m.getName());
            });
    final VerbsResources res;

    ScriptedVerbs(InetAddress... locals) throws Exception {
        for (InetAddress a : locals) {
            vnics.add(new Vnic(a, 0, "v"));
        }
        res = VerbsResources.open(new EngineAgent(0, 16, 0), provider(), "scripted", a -> 64);
    }

    /** A QP of the test's own (an established path's). */
    Qp qp() {
        Qp q = new Qp(0x300 + qps.size());
        q.proxy = (IbvQp) Proxy.newProxyInstance(IbvQp.class.getClassLoader(), new Class<?>[] {IbvQp.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "qpNum" -> q.qpn;
                    case "modifyQp" -> {
                        IbvQpState s = ((IbvQpAttr) args[0]).qpState();
                        if (connectFails && s == IbvQpState.RTR) {
                            throw new VerbsException(22, "scripted connect failure");
                        }
                        q.states.add(s);
                        yield null;
                    }
                    case "close" -> {
                        q.closed = true;
                        yield null;
                    }
                    case "counters" -> (VerbsCounters) Proxy.newProxyInstance(VerbsCounters.class.getClassLoader(),
                            new Class<?>[] {VerbsCounters.class}, (p2, m2, a2) -> {
                                if (q.countersFail) {
                                    throw new IllegalStateException("scripted");
                                }
                                return q.retransmitted;
                            });
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        qps.add(q);
        return q;
    }

    /** @return the QP with this number */
    Qp byQpn(int qpn) {
        for (Qp q : qps) {
            if (q.qpn == qpn) {
                return q;
            }
        }
        throw new AssertionError("no QP " + Integer.toHexString(qpn));
    }

    Qp last() {
        return qps.get(qps.size() - 1);
    }

    private VerbsProvider provider() {
        IbvPd pd = (IbvPd) Proxy.newProxyInstance(IbvPd.class.getClassLoader(), new Class<?>[] {IbvPd.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "createQp" -> {
                        if (createFails) {
                            throw new VerbsException(12, "scripted create failure");
                        }
                        yield qp().proxy;
                    }
                    case "close" -> null;
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        IbvCq cq = (IbvCq) Proxy.newProxyInstance(IbvCq.class.getClassLoader(), new Class<?>[] {IbvCq.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "close" -> null;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        IbvCompChannel channel = (IbvCompChannel) Proxy.newProxyInstance(IbvCompChannel.class.getClassLoader(),
                new Class<?>[] {IbvCompChannel.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "getCqEvent" -> {
                        channelClosed.await((long) args[0], (TimeUnit) args[1]);
                        yield null;
                    }
                    case "close" -> {
                        channelClosed.countDown();
                        yield null;
                    }
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        IbvContext context = (IbvContext) Proxy.newProxyInstance(IbvContext.class.getClassLoader(),
                new Class<?>[] {IbvContext.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "vnics" -> List.copyOf(vnics);
                    case "udpPort" -> UDP_PORT;
                    case "queryDevice" -> new IbvDeviceAttr();
                    case "allocPd" -> pd;
                    case "createCompChannel" -> channel;
                    case "createCq" -> cq;
                    case "close" -> null;
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
        return (VerbsProvider) Proxy.newProxyInstance(VerbsProvider.class.getClassLoader(),
                new Class<?>[] {VerbsProvider.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "name" -> "scripted";
                    case "openDevice" -> context;
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> throw new AssertionError("unexpected " + m.getName());
                });
    }

    @Override
    public void close() {
        res.close();
    }
}
