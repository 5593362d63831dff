package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;

import org.agrona.concurrent.AgentTerminationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;

/**
 * {@link EngineAgent} driven on the test thread, never started: its counters, its duty cycle with
 * nothing to run, stopping, and its shared devices as {@link VerbsResources} open and close them
 * (one {@link SharedDevice} per device, counted, closed by the last release or by the agent's close).
 */
class EngineAgentTest {
    private FabricNetwork network;
    private SoftVerbsProvider provider;
    private InetAddress a;
    private InetAddress b;

    @BeforeEach
    void fabric() throws Exception {
        network = new FabricNetwork("agent", 5);
        a = InetAddress.getByName("10.0.1.1");
        b = InetAddress.getByName("10.0.2.1");
        network.addHost("a", a);
        network.addHost("b", b);
        network.link(a, b, LinkSpec.parse("rate=0"));
        provider = new SoftVerbsProvider(SoftRnicConfig.builder("a").addresses(List.of(a)).fabric(network, "a").build(),
                SoftRnicConfig.builder("b").addresses(List.of(b)).fabric(network, "b").build());
    }

    @AfterEach
    void close() {
        provider.close();
        network.close();
    }

    @Test
    void aNegativeBackoffWindowIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new EngineAgent(0, 16, -1));
        assertEquals(0, new EngineAgent(0, 16, 0).load(), "a zero window is allowed");
    }

    @Test
    void nameIndexAndLoad() {
        EngineAgent agent = new EngineAgent(3, 16, 1000);
        assertEquals("virtuoso-engine-3", agent.roleName());
        assertEquals(3, agent.index());
        assertNull(agent.thread(), "not started");
        agent.assign();
        agent.assign();
        assertEquals(2, agent.load());
        agent.unassign();
        assertEquals(1, agent.load());
        agent.onStart();
        assertSame(Thread.currentThread(), agent.thread());
    }

    @Test
    void aDutyCycleWithNothingToRunDoesNoWorkAndCountsNothing() {
        EngineAgent agent = new EngineAgent(0, 16, 1000);
        assertEquals(0, agent.doWork());
        assertEquals(0, agent.doWork());
        assertEquals(0, agent.duties());
        assertEquals(0, agent.overflows());
        assertEquals(0, agent.completionEvents());
        assertFalse(agent.busy());
    }

    @Test
    void aStoppedAgentEndsItsNextDutyCycleAndDoesNotPark() {
        EngineAgent agent = new EngineAgent(0, 16, 1000);
        agent.onStart();
        agent.stop();
        assertThrows(AgentTerminationException.class, agent::doWork);
        agent.sleep(); // would park up to a second if it ignored the stop
        assertEquals(0, agent.parks());
        EngineIdleStrategy idle = new EngineIdleStrategy(agent);
        idle.idle(0);
        idle.idle();
        idle.idle(1);
        idle.reset();
        assertEquals(0, agent.parks(), "the idle strategy sleeps through the agent");
        assertEquals("virtuoso-engine", idle.alias());
    }

    @Test
    void connectionsOnOneDeviceShareOneContextReleasedByTheLast() throws Exception {
        EngineAgent agent = new EngineAgent(0, 16, 1000);
        VerbsResources one = VerbsResources.open(agent, provider, "a", d -> 64);
        VerbsResources two = VerbsResources.open(agent, provider, "a", d -> 64);
        assertEquals(1, agent.openDevices());
        assertSame(one.context, two.context, "one context per device and agent");
        assertNotSame(one.pd, two.pd, "a protection domain each");
        assertNotSame(one.cq, two.cq, "a CQ each");
        assertNotNull(one.device);
        assertEquals(List.of(a), one.addresses());
        assertNotNull(one.vnic(a));
        assertEquals(a, one.vnic(a).address());
        assertNull(one.vnic(b), "not a vNIC of this device");
        one.close();
        assertEquals(1, agent.openDevices(), "still used by the other connection");
        one.close();
        assertEquals(1, agent.openDevices(), "closing twice releases once");
        two.close();
        assertEquals(0, agent.openDevices());
        VerbsResources again = VerbsResources.open(agent, provider, "a", d -> 64);
        assertNotSame(one.context, again.context, "a closed device is opened anew");
        again.close();
        assertEquals(0, agent.openDevices());
    }

    @Test
    void theSameDeviceOfAnotherProviderInstanceIsAnotherContext() throws Exception {
        EngineAgent agent = new EngineAgent(0, 16, 1000);
        FabricNetwork elsewhere = new FabricNetwork("agent-other", 5);
        elsewhere.addHost("a", a);
        SoftVerbsProvider other = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addresses(List.of(a)).fabric(elsewhere, "a").build());
        try {
            VerbsResources one = VerbsResources.open(agent, provider, "a", d -> 64);
            VerbsResources two = VerbsResources.open(agent, other, "a", d -> 64);
            VerbsResources three = VerbsResources.open(agent, provider, "b", d -> 64);
            assertEquals(3, agent.openDevices());
            assertNotSame(one.context, two.context);
            assertEquals(List.of(b), three.addresses());
            two.close();
            assertEquals(2, agent.openDevices());
            agent.onClose(); // closes what is left
            assertEquals(0, agent.openDevices());
        } finally {
            other.close();
            elsewhere.close();
        }
    }

    @Test
    void theSharedDeviceRunsOneEventThreadUntilClosed() throws Exception {
        EngineAgent agent = new EngineAgent(7, 16, 1000);
        SharedDevice d = agent.acquireDevice(provider, "b");
        assertSame(d, agent.acquireDevice(provider, "b"));
        assertEquals(2, d.references);
        assertTrue(d.eventThreadAlive());
        assertTrue(Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals("virtuoso-cqev-7-b")),
                "event thread named after agent and device");
        agent.releaseDevice(d);
        assertTrue(d.eventThreadAlive(), "one reference left");
        assertEquals(1, agent.openDevices());
        agent.releaseDevice(d);
        assertFalse(d.eventThreadAlive(), "the last release closes the device and ends its thread");
        assertEquals(0, agent.openDevices());
    }

    @Test
    void aDeviceThatCannotBeOpenedIsProviderUnavailable() {
        EngineAgent agent = new EngineAgent(0, 16, 1000);
        VirtuosoException e = assertThrows(VirtuosoException.class,
                () -> VerbsResources.open(agent, provider, "no-such-device", d -> 64));
        assertEquals(Reason.PROVIDER_UNAVAILABLE, e.reason());
        assertTrue(e.getMessage().contains("no-such-device"), e.getMessage());
        assertEquals(0, agent.openDevices());
    }

    @Test
    void aFailedCqReleasesTheDevice() throws Exception {
        EngineAgent agent = new EngineAgent(0, 16, 1000);
        VerbsResources kept = VerbsResources.open(agent, provider, "a", d -> 64);
        VirtuosoException e = assertThrows(VirtuosoException.class, () -> VerbsResources.open(agent, provider, "a", d -> {
            throw new IllegalStateException("no CQ today");
        }));
        assertEquals(Reason.VERBS, e.reason());
        assertTrue(e.getMessage().contains("no CQ today"), e.getMessage());
        assertEquals(1, agent.openDevices());
        kept.close();
        assertEquals(0, agent.openDevices(), "the failed open took no reference");
    }

    @Test
    void closingTheAgentClosesTheDevicesLeftOpen() throws Exception {
        EngineAgent agent = new EngineAgent(2, 16, 1000);
        SharedDevice d = agent.acquireDevice(provider, "a");
        assertTrue(d.eventThreadAlive());
        agent.onClose();
        assertFalse(d.eventThreadAlive(), "closed, its event thread ended");
        assertEquals(0, agent.openDevices());
    }

    @Test
    void aGroupCountsTheDevicesOfAllItsAgents() throws Exception {
        try (EngineGroup g = new EngineGroup(2)) {
            EngineAgent x = g.assign();
            EngineAgent y = g.assign();
            VerbsResources one = VerbsResources.open(x, provider, "a", d -> 64);
            VerbsResources two = VerbsResources.open(y, provider, "b", d -> 64);
            assertEquals(2, g.openDevices());
            one.close();
            assertEquals(1, g.openDevices());
            two.close();
            assertEquals(0, g.openDevices());
        }
    }
}
