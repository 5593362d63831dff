package dev.virtuoso.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.RdmaDevice;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;

class SoftVerbsProviderTest {

    private static SoftRnicConfig udp(String name, String address) {
        return SoftRnicConfig.builder(name).addressLiterals(address).udpPort(0).build();
    }

    private static long threadsNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name) && t.isAlive()).count();
    }

    private static boolean threadAlive(String name) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals(name) && t.isAlive());
    }

    @Test
    void closingTheProviderStopsEngineThreadsAndReleasesSockets() throws Exception {
        SoftVerbsProvider provider = new SoftVerbsProvider(udp("p1", "127.0.0.41"),
                udp("p2", "127.0.0.42"));
        List<RdmaDevice> devices = provider.devices();
        assertEquals(List.of("p1", "p2"), devices.stream().map(RdmaDevice::name).toList());
        assertEquals("127.0.0.41", devices.get(0).vnics().get(0).address().getHostAddress());
        IbvContext c1 = provider.openDevice("p1");
        IbvContext c2 = provider.openDevice("p1");
        IbvContext c3 = provider.openDevice(null);
        assertEquals("p1", c3.deviceName());
        IbvContext d = provider.openDevice("p2");
        int port = c1.udpPort();
        assertTrue(port > 0);
        c1.allocPd().regMr(ByteBuffer.allocateDirect(64), IbvAccess.LOCAL_WRITE);
        assertTrue(threadAlive("virtuoso-soft-p1"));
        c1.close();
        c2.close();
        assertTrue(threadAlive("virtuoso-soft-p1"), "a context is still open");
        c3.close();
        assertFalse(threadAlive("virtuoso-soft-p1"), "last context closed: engine must stop");
        assertTrue(threadAlive("virtuoso-soft-p2"));
        provider.close();
        assertFalse(threadAlive("virtuoso-soft-p2"));
        assertFalse(provider.device("p2").isRunning());
        assertThrows(VerbsException.class, d::allocPd);
        VerbsException e = assertThrows(VerbsException.class, () -> provider.openDevice("p1"));
        assertEquals(VerbsException.ENODEV, e.errno());
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress("127.0.0.41", port)); // the device's socket is gone
        }
    }

    @Test
    void unknownDeviceIsNoSuchDevice() {
        try (SoftVerbsProvider provider = new SoftVerbsProvider(udp("only", "127.0.0.44"))) {
            VerbsException e = assertThrows(VerbsException.class, () -> provider.openDevice("nope"));
            assertEquals(VerbsException.ENODEV, e.errno());
        }
    }

    @Test
    void registrationRejectsWhatLibibverbsRejects() throws Exception {
        try (SoftVerbsProvider provider = new SoftVerbsProvider(udp("m", "127.0.0.45"))) {
            IbvContext c = provider.openDevice("m");
            IbvPd pd = c.allocPd();
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                    () -> pd.regMr(ByteBuffer.allocate(64), IbvAccess.LOCAL_WRITE)).errno(), "heap");
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                    () -> pd.regMr(ByteBuffer.allocateDirect(64), IbvAccess.REMOTE_WRITE)).errno(),
                    "remote write without local write");
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                    () -> pd.regMr(ByteBuffer.allocateDirect(0), IbvAccess.LOCAL_WRITE)).errno());
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                    () -> pd.regMr(ByteBuffer.allocateDirect(8), 1 << 9)).errno());
            ByteBuffer b = ByteBuffer.allocateDirect(100).position(10).limit(30);
            assertEquals(20, pd.regMr(b, IbvAccess.LOCAL_WRITE).length(), "position..limit");
        }
    }

    @Test
    void componentServesConfiguredUdpDevicesAndStopsOnDeactivate() throws Exception {
        SoftVerbsComponent component = new SoftVerbsComponent();
        component.start(config(Map.of("devices", new String[] {"c1=127.0.0.46,127.0.0.47"},
                "udpPort", 0)));
        assertEquals("soft", component.name());
        RdmaDevice dev = component.devices().get(0);
        assertEquals("c1", dev.name());
        assertEquals(2, dev.vnics().size());
        assertEquals(1, dev.vnics().get(1).gidIndex());
        IbvContext c = component.openDevice("c1");
        assertEquals(2, c.vnics().size());
        assertTrue(threadAlive("virtuoso-soft-c1"));
        component.deactivate();
        assertFalse(threadAlive("virtuoso-soft-c1"));
    }

    @Test
    void aRefusedFabricConfigurationLeavesNoFabricThread() {
        long before = threadsNamed("virtuoso-fabric-soft");
        SoftVerbsComponent component = new SoftVerbsComponent();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> component.start(config(Map.of("wire", "fabric", "fabricSpec", "L1=10.9.0.1 L2=10.9.0.2",
                        "windowPackets", 4))));
        assertTrue(e.getMessage().contains("window"), e.getMessage());
        assertEquals(before, threadsNamed("virtuoso-fabric-soft"), "the fabric built before the refusal is closed");
    }

    @Test
    void aDeviceThatCannotStartClosesTheOnesBeforeIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SoftVerbsProvider(udp("d1", "127.0.0.43"), udp("d1", "127.0.0.44")));
        assertTrue(e.getMessage().contains("duplicate device name d1"), e.getMessage());
        assertFalse(threadAlive("virtuoso-soft-d1"), "the first d1 is closed");
    }

    @Test
    void componentDefaultsToOneLoopbackDeviceOnTheRocePort() {
        SoftVerbsComponent component = new SoftVerbsComponent();
        component.start(config(Map.of()));
        RdmaDevice dev = component.devices().get(0);
        assertEquals("soft0", dev.name());
        assertEquals("127.0.0.1", dev.vnics().get(0).address().getHostAddress());
        component.deactivate();
    }

    @Test
    void componentBuildsAFabricWhoseHostsAreDevices() throws Exception {
        SoftVerbsComponent component = new SoftVerbsComponent();
        component.start(config(Map.of("wire", "fabric", "fabricSpec",
                "A=10.3.0.1 B=10.3.0.2; link A-B rate=10g delay=20us")));
        assertEquals(List.of("A", "B"), component.devices().stream().map(RdmaDevice::name).toList());
        ConformanceEnvironment env = ConformanceEnvironment.of("component/fabric",
                () -> component.openDevice("A"), () -> component.openDevice("B"));
        try (Rig rig = new Rig(env, 3)) {
            QpPair p = rig.connect(new QpSettings());
            Mem src = rig.mem(rig.pdA, 1 << 20, IbvAccess.LOCAL_WRITE).fillRandom(1);
            Mem dst = rig.mem(rig.pdB, 1 << 20, IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE);
            p.a().postSend(Rig.wr(1, IbvWrOpcode.RDMA_WRITE, src, 0, 1 << 20, dst, 0));
            assertEquals(IbvWcStatus.SUCCESS, Rig.expect(rig.cqA, 1).get(0).status());
            assertEquals(-1, dst.mismatch(0, src, 0, 1 << 20));
        }
        component.deactivate();
        assertFalse(threadAlive("virtuoso-soft-A"));
    }

    @Test
    void componentCanServeDevicesWithoutSharedReceiveQueues() throws Exception {
        SoftVerbsComponent component = new SoftVerbsComponent();
        component.start(config(Map.of("wire", "fabric", "fabricSpec", "A=10.0.0.1 B=10.0.0.2",
                "sharedReceiveQueues", false)));
        try (IbvContext c = component.openDevice("A"); IbvPd pd = c.allocPd()) {
            assertEquals(0, c.queryDevice().maxSrq());
            VerbsException e = assertThrows(VerbsException.class, () -> pd.createSrq(8, 1));
            assertEquals(VerbsException.EOPNOTSUPP, e.errno());
        } finally {
            component.deactivate();
        }
        component = new SoftVerbsComponent();
        component.start(config(Map.of("wire", "fabric", "fabricSpec", "A=10.0.0.1 B=10.0.0.2")));
        try (IbvContext c = component.openDevice("A"); IbvPd pd = c.allocPd()) {
            assertTrue(c.queryDevice().maxSrq() > 0, "SRQs by default");
            pd.createSrq(8, 1).close();
        } finally {
            component.deactivate();
        }
    }

    @Test
    void fabricModeRegistersFabricControlUntilDeactivated() throws Exception {
        List<Object[]> registered = new java.util.ArrayList<>();
        boolean[] unregistered = {false};
        org.osgi.framework.ServiceRegistration<?> registration =
                (org.osgi.framework.ServiceRegistration<?>) Proxy.newProxyInstance(
                        getClass().getClassLoader(),
                        new Class<?>[] {org.osgi.framework.ServiceRegistration.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("unregister")) {
                                unregistered[0] = true;
                            }
                            return null;
                        });
        org.osgi.framework.BundleContext context =
                (org.osgi.framework.BundleContext) Proxy.newProxyInstance(
                        getClass().getClassLoader(),
                        new Class<?>[] {org.osgi.framework.BundleContext.class},
                        (proxy, method, args) -> {
                            if (method.getName().equals("registerService")) {
                                registered.add(args);
                                return registration;
                            }
                            throw new UnsupportedOperationException(method.getName());
                        });
        SoftVerbsComponent component = new SoftVerbsComponent();
        component.activate(context, config(Map.of("wire", "fabric", "fabricSpec",
                "H1=10.4.0.1 H2=10.4.0.2; link H1-H2 rate=1g")));
        assertEquals(1, registered.size());
        Object[] args = registered.get(0);
        assertEquals(dev.virtuoso.verbs.soft.fabric.api.FabricControl.class, args[0]);
        dev.virtuoso.verbs.soft.fabric.api.FabricControl control =
                (dev.virtuoso.verbs.soft.fabric.api.FabricControl) args[1];
        assertEquals(List.of("H1", "H2"), control.hosts());
        assertEquals("soft", ((java.util.Dictionary<?, ?>) args[2]).get(
                dev.virtuoso.verbs.soft.fabric.api.FabricControl.FABRIC_NAME_PROPERTY));
        component.deactivate();
        assertTrue(unregistered[0]);

        component = new SoftVerbsComponent();
        registered.clear();
        component.activate(context, config(Map.of("devices", new String[] {"u=127.0.0.48"},
                "udpPort", 0)));
        assertTrue(registered.isEmpty(), "no fabric, no FabricControl");
        component.deactivate();
    }

    @Test
    void componentCanHaveItsDevicesRunByTheirCqPollers() throws Exception {
        // the idle engine yields for 30 s instead of parking, so it parks only to stand back for pollers
        assertEquals(true, standsBackForAPoller(Map.of("invokeOnPoll", true)), "invokeOnPoll=true");
        assertEquals(false, standsBackForAPoller(Map.of()), "by default");
    }

    /** @return whether device I's engine thread was seen parked within 2 s of a thread polling its CQ */
    private static boolean standsBackForAPoller(Map<String, Object> extra) throws Exception {
        Map<String, Object> values = new java.util.HashMap<>(Map.of("wire", "fabric",
                "fabricSpec", "I=10.4.1.1 J=10.4.1.2", "yieldMicros", 30_000_000));
        values.putAll(extra);
        SoftVerbsComponent component = new SoftVerbsComponent();
        component.start(config(values));
        try (IbvContext c = component.openDevice("I"); var cq = c.createCq(16, null)) {
            Thread engine = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("virtuoso-soft-I")).findFirst().orElseThrow();
            dev.virtuoso.spi.verbs.IbvWc[] wcs = {new dev.virtuoso.spi.verbs.IbvWc()};
            long end = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() - end < 0) {
                assertEquals(0, cq.pollCq(wcs, 1));
                if (engine.getState() == Thread.State.TIMED_WAITING) {
                    return true;
                }
            }
            return false;
        } finally {
            component.deactivate();
        }
    }

    /** An instance of the metatype annotation: given values, else the declared defaults. */
    private static SoftVerbsComponent.Config config(Map<String, Object> values) {
        return (SoftVerbsComponent.Config) Proxy.newProxyInstance(
                SoftVerbsComponent.Config.class.getClassLoader(),
                new Class<?>[] {SoftVerbsComponent.Config.class},
                (proxy, method, args) -> values.containsKey(method.getName())
                        ? values.get(method.getName()) : method.getDefaultValue());
    }
}
