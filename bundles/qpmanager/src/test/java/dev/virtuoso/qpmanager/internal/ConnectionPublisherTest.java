package dev.virtuoso.qpmanager.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

import dev.virtuoso.api.MultipathConnection;

/**
 * {@link ConnectionPublisher} against a recording bundle context: one service per established
 * connection with its id and peer, withdrawn once when it closes, also when it closed before it
 * was published; a stopped bundle's context or a withdrawn registration is not an error.
 */
class ConnectionPublisherTest {
    /** What the fake framework saw. */
    private final List<String> log = new ArrayList<>();
    private boolean contextInvalid;
    private boolean alreadyUnregistered;

    private BundleContext context() {
        return (BundleContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {BundleContext.class},
                (proxy, m, args) -> {
                    if (!m.getName().equals("registerService")) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    if (contextInvalid) {
                        throw new IllegalStateException("bundle stopped");
                    }
                    assertSame(MultipathConnection.class, args[0]);
                    MultipathConnection c = (MultipathConnection) args[1];
                    Dictionary<?, ?> props = (Dictionary<?, ?>) args[2];
                    log.add("register " + c.id() + " " + props.get(ConnectionPublisher.ID_PROPERTY) + " "
                            + props.get("virtuoso.connection.peer"));
                    return registration(c.id());
                });
    }

    private ServiceRegistration<?> registration(String id) {
        return (ServiceRegistration<?>) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {ServiceRegistration.class}, (proxy, m, args) -> {
                    if (!m.getName().equals("unregister")) {
                        throw new UnsupportedOperationException(m.getName());
                    }
                    log.add("unregister " + id);
                    if (alreadyUnregistered) {
                        throw new IllegalStateException("already unregistered");
                    }
                    return null;
                });
    }

    private static MultipathConnection connection(String id) {
        return (MultipathConnection) Proxy.newProxyInstance(ConnectionPublisherTest.class.getClassLoader(),
                new Class<?>[] {MultipathConnection.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "id" -> id;
                    case "remoteBootstrapAddress" -> InetSocketAddress.createUnresolved("peer", 7000);
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void publishesEachConnectionAndWithdrawsItOnce() {
        ConnectionPublisher p = new ConnectionPublisher(context());
        MultipathConnection c1 = connection("c1");
        MultipathConnection c2 = connection("c2");
        p.established(c1);
        p.established(c2);
        assertEquals(List.of("register c1 c1 peer/<unresolved>:7000", "register c2 c2 peer/<unresolved>:7000"),
                log);
        p.closed(c1);
        p.closed(c1); // a second close before any publication is remembered, not withdrawn again
        assertEquals(List.of("register c1 c1 peer/<unresolved>:7000", "register c2 c2 peer/<unresolved>:7000",
                "unregister c1"), log);
        p.close();
        assertEquals("unregister c2", log.get(log.size() - 1));
        assertEquals(4, log.size());
        p.close();
        assertEquals(4, log.size(), "nothing left to withdraw");
    }

    @Test
    void aConnectionClosedBeforeItWasPublishedIsWithdrawnAsSoonAsItIs() {
        ConnectionPublisher p = new ConnectionPublisher(context());
        MultipathConnection c = connection("early");
        p.closed(c);
        assertEquals(List.of(), log);
        p.established(c);
        assertEquals(List.of("register early early peer/<unresolved>:7000", "unregister early"), log);
        p.close();
        assertEquals(2, log.size(), "withdrawn once");
        p.established(c);
        assertEquals(3, log.size(), "published again: it was not left marked as gone");
    }

    @Test
    void closingForgetsConnectionsThatNeverCame() {
        ConnectionPublisher p = new ConnectionPublisher(context());
        MultipathConnection c = connection("never");
        p.closed(c);
        p.close();
        p.established(c);
        assertEquals(List.of("register never never peer/<unresolved>:7000"), log, "not withdrawn: close forgot it");
    }

    @Test
    void aStoppedBundleOrAWithdrawnRegistrationIsNotAnError() {
        ConnectionPublisher p = new ConnectionPublisher(context());
        MultipathConnection c = connection("c");
        contextInvalid = true;
        p.established(c); // not published: the bundle stopped
        assertTrue(log.isEmpty(), log.toString());
        p.closed(c);
        contextInvalid = false;
        p.established(c);
        assertEquals(List.of("register c c peer/<unresolved>:7000", "unregister c"), log,
                "closed meanwhile: withdrawn at once");
        MultipathConnection d = connection("d");
        p.established(d);
        alreadyUnregistered = true;
        p.closed(d);
        assertEquals(List.of("register c c peer/<unresolved>:7000", "unregister c", "register d d peer/<unresolved>:7000",
                "unregister d"), log);
        log.clear();
        p.close();
        assertEquals(List.of(), log, "nothing left to withdraw");
    }
}
