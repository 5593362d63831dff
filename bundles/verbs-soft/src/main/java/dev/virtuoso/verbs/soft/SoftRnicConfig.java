package dev.virtuoso.verbs.soft;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.ToIntFunction;

import dev.virtuoso.verbs.soft.fabric.FabricNetwork;

/**
 * Settings of one soft RNIC device: name, vNIC addresses, UDP port, wire, and transport knobs.
 * Immutable; made with {@link #builder(String)}.
 *
 * <p>Defaults: vNIC 127.0.0.1, UDP port 4791, UDP wire, ICRC check on, UDP source port of a
 * connected QP's packets checked, window 128 packets, AckReq every 32 packets, READs issued in requests of at most 32
 * packets, 20 us spin before parking, no yielding phase.
 */
public final class SoftRnicConfig {
    /** The RoCEv2 UDP port. */
    public static final int ROCE_PORT = 4791;

    private final String deviceName;
    private final List<InetAddress> addresses;
    private final int udpPort;
    private final WireFactory wireFactory;
    private final boolean icrcCheck;
    private final boolean checkSourcePort;
    private final int windowPackets;
    private final int ackRequestInterval;
    private final int readSegmentPackets;
    private final int txBurst;
    private final int rxBatch;
    private final int doorbellQueue;
    private final long spinNanos;
    private final long yieldNanos;
    private final boolean invokeOnPoll;
    private final long maxParkNanos;
    private final int maxQueueWr;
    private final int maxCqe;
    private final long commandTimeoutMillis;
    private final boolean sharedReceiveQueues;
    private final ToIntFunction<InetAddress> interfaceMtu;

    private SoftRnicConfig(Builder b) {
        deviceName = b.deviceName;
        addresses = List.copyOf(b.addresses);
        udpPort = b.udpPort;
        wireFactory = b.wireFactory;
        icrcCheck = b.icrcCheck;
        checkSourcePort = b.checkSourcePort;
        windowPackets = b.windowPackets;
        ackRequestInterval = b.ackRequestInterval;
        readSegmentPackets = b.readSegmentPackets;
        txBurst = b.txBurst;
        rxBatch = b.rxBatch;
        doorbellQueue = b.doorbellQueue;
        spinNanos = b.spinNanos;
        yieldNanos = b.yieldNanos;
        invokeOnPoll = b.invokeOnPoll;
        maxParkNanos = b.maxParkNanos;
        maxQueueWr = b.maxQueueWr;
        maxCqe = b.maxCqe;
        commandTimeoutMillis = b.commandTimeoutMillis;
        sharedReceiveQueues = b.sharedReceiveQueues;
        interfaceMtu = b.interfaceMtu;
    }

    /**
     * @param deviceName the device name, e.g. {@code soft0}
     * @return a builder with the defaults
     */
    public static Builder builder(String deviceName) {
        return new Builder(deviceName);
    }

    /** @return the device name */
    public String deviceName() {
        return deviceName;
    }

    /** @return vNIC addresses, in GID-table order */
    public List<InetAddress> addresses() {
        return addresses;
    }

    /** @return local UDP port of every vNIC (0: a free port, the same for all vNICs) */
    public int udpPort() {
        return udpPort;
    }

    /** @return how the device gets its wire */
    public WireFactory wireFactory() {
        return wireFactory;
    }

    /**
     * @return whether a connected QP accepts packets only from its peer's UDP port (the peer's
     *     address is always checked)
     */
    public boolean checkSourcePort() {
        return checkSourcePort;
    }

    /** @return whether received ICRCs are verified (generated ones are always correct) */
    public boolean icrcCheck() {
        return icrcCheck;
    }

    /** @return the requester's window of unacknowledged PSNs */
    public int windowPackets() {
        return windowPackets;
    }

    /** @return AckReq is set at least every this many packets (and on every last packet) */
    public int ackRequestInterval() {
        return ackRequestInterval;
    }

    /** @return the largest READ request, in response packets */
    public int readSegmentPackets() {
        return readSegmentPackets;
    }

    /** @return packets a QP may send per engine cycle before the next QP's turn */
    public int txBurst() {
        return txBurst;
    }

    /** @return datagrams taken from each port per engine cycle */
    public int rxBatch() {
        return rxBatch;
    }

    /**
     * @return QPs whose doorbells may wait for the engine at once; beyond it a doorbell makes the
     *     engine visit every QP once
     */
    public int doorbellQueue() {
        return doorbellQueue;
    }

    /** @return how long an idle engine spins before parking */
    public long spinNanos() {
        return spinNanos;
    }

    /** @return how long an idle engine yields the processor in a loop after its spin, before parking */
    public long yieldNanos() {
        return yieldNanos;
    }

    /**
     * @return true if a thread that polls one of the device's CQs runs the engine's duty cycle
     *     itself while the engine thread stands back ({@link Builder#invokeOnPoll})
     */
    public boolean invokeOnPoll() {
        return invokeOnPoll;
    }

    /** @return the longest park when no timer is due */
    public long maxParkNanos() {
        return maxParkNanos;
    }

    /** @return the largest send/receive queue and SRQ depth */
    public int maxQueueWr() {
        return maxQueueWr;
    }

    /** @return the largest CQ */
    public int maxCqe() {
        return maxCqe;
    }

    /** @return how long a control verb (modify, create, destroy) waits for the engine */
    public long commandTimeoutMillis() {
        return commandTimeoutMillis;
    }

    /**
     * @return whether the device offers shared receive queues; without them it advertises
     *     {@code max_srq = 0} and {@code createSrq} fails with EOPNOTSUPP, like an RNIC or binding
     *     without SRQs (DiSNI 2.1)
     */
    public boolean sharedReceiveQueues() {
        return sharedReceiveQueues;
    }

    /**
     * @return the MTU of the network interface a vNIC address is on (0 if unknown); the UDP wire
     *     refuses path MTUs whose datagrams would not fit it
     */
    public ToIntFunction<InetAddress> interfaceMtu() {
        return interfaceMtu;
    }

    /**
     * @param address a local address
     * @return the MTU of the interface that has it, or 0 if no interface has it or it is unknown
     */
    public static int systemInterfaceMtu(InetAddress address) {
        try {
            NetworkInterface nif = NetworkInterface.getByInetAddress(address);
            return nif == null ? 0 : Math.max(0, nif.getMTU());
        } catch (SocketException e) {
            return 0;
        }
    }

    @Override
    public String toString() {
        return "SoftRnicConfig[" + deviceName + " " + addresses + ":" + udpPort + ", icrcCheck="
                + icrcCheck + ", checkSourcePort=" + checkSourcePort + ", window=" + windowPackets + "]";
    }

    /** Builder of {@link SoftRnicConfig}. */
    public static final class Builder {
        private final String deviceName;
        private final List<InetAddress> addresses = new ArrayList<>();
        private int udpPort = ROCE_PORT;
        private WireFactory wireFactory = WireFactory.udp();
        private boolean icrcCheck = true;
        private boolean checkSourcePort = true;
        private int windowPackets = 128;
        private int ackRequestInterval = 32;
        private int readSegmentPackets = 32;
        private int txBurst = 32;
        private int rxBatch = 64;
        private int doorbellQueue = 4096;
        private long spinNanos = 20_000;
        private long yieldNanos;
        private boolean invokeOnPoll;
        private long maxParkNanos = 10_000_000;
        private int maxQueueWr = 16384;
        private int maxCqe = 1 << 20;
        private long commandTimeoutMillis = 10_000;
        private boolean sharedReceiveQueues = true;
        private ToIntFunction<InetAddress> interfaceMtu = SoftRnicConfig::systemInterfaceMtu;

        private Builder(String deviceName) {
            if (deviceName == null || deviceName.isEmpty()) {
                throw new IllegalArgumentException("device name required");
            }
            this.deviceName = deviceName;
        }

        /** @param a vNIC addresses in GID order (replaces any set before) @return this */
        public Builder addresses(List<InetAddress> a) {
            addresses.clear();
            addresses.addAll(a);
            return this;
        }

        /** @param a vNIC addresses in GID order @return this */
        public Builder addresses(InetAddress... a) {
            return addresses(List.of(a));
        }

        /**
         * @param literals IP address literals, never resolved through DNS
         * @return this
         */
        public Builder addressLiterals(String... literals) {
            List<InetAddress> a = new ArrayList<>();
            for (String l : literals) {
                a.add(literal(l));
            }
            return addresses(a);
        }

        /** @param port local UDP port (0 picks a free one) @return this */
        public Builder udpPort(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("UDP port out of range: " + port);
            }
            udpPort = port;
            return this;
        }

        /**
         * @param lookup the MTU of a vNIC address's interface, 0 if unknown (default: the system's
         *     {@link NetworkInterface#getMTU()})
         * @return this
         */
        public Builder interfaceMtu(ToIntFunction<InetAddress> lookup) {
            interfaceMtu = Objects.requireNonNull(lookup);
            return this;
        }

        /** @param factory the wire (UDP by default) @return this */
        public Builder wire(WireFactory factory) {
            wireFactory = Objects.requireNonNull(factory);
            return this;
        }

        /**
         * Puts the device on a fabric host: its vNICs become the host's addresses (unless set).
         *
         * @param network the fabric
         * @param host the host name
         * @return this
         */
        public Builder fabric(FabricNetwork network, String host) {
            wireFactory = WireFactory.fabric(network, host);
            if (addresses.isEmpty()) {
                addresses.addAll(network.host(host).orElseThrow(
                        () -> new IllegalArgumentException("no fabric host " + host)).addresses());
            }
            return this;
        }

        /**
         * @param check verify received ICRCs (default on; IPv4 packets are checked with the IP ID
         *     unknown, see {@code Icrc.verify})
         * @return this
         */
        public Builder icrcCheck(boolean check) {
            icrcCheck = check;
            return this;
        }

        /**
         * @param check accept packets for a connected QP only from the UDP port its address vector
         *     names (default on: soft RNIC peers send from the port they listen on). Turn it off
         *     for peers that pick source ports per flow (Linux rxe, hardware RNICs); the source
         *     address is checked either way.
         * @return this
         */
        public Builder checkSourcePort(boolean check) {
            checkSourcePort = check;
            return this;
        }

        /** @param packets window of unacknowledged PSNs, 8..4096 @return this */
        public Builder windowPackets(int packets) {
            windowPackets = range(packets, 8, 4096, "window");
            return this;
        }

        /** @param packets AckReq interval, 1..window @return this */
        public Builder ackRequestInterval(int packets) {
            ackRequestInterval = range(packets, 1, 4096, "AckReq interval");
            return this;
        }

        /** @param packets largest READ request in response packets @return this */
        public Builder readSegmentPackets(int packets) {
            readSegmentPackets = range(packets, 1, 4096, "READ segment");
            return this;
        }

        /** @param packets per-QP transmit burst per engine cycle @return this */
        public Builder txBurst(int packets) {
            txBurst = range(packets, 1, 4096, "tx burst");
            return this;
        }

        /** @param datagrams per-port receive batch per engine cycle @return this */
        public Builder rxBatch(int datagrams) {
            rxBatch = range(datagrams, 1, 4096, "rx batch");
            return this;
        }

        /**
         * @param qps QPs whose doorbells may be queued for the engine at once (1..1048576, default
         *     4096); beyond it a doorbell makes the engine visit every QP of the device once
         * @return this
         */
        public Builder doorbellQueue(int qps) {
            doorbellQueue = range(qps, 1, 1 << 20, "doorbell queue");
            return this;
        }

        /** @param nanos spin time of an idle engine before it parks @return this */
        public Builder spinNanos(long nanos) {
            spinNanos = Math.max(0, nanos);
            return this;
        }

        /**
         * @param nanos how long an idle engine, after its spin, calls {@link Thread#yield()} in a loop
         *     before it parks: on a machine with fewer cores than busy threads, a packet that arrives
         *     then is taken without a thread wake-up (tens of microseconds on a VM), while the other
         *     threads still get the processor; it costs a core's time slices while traffic trickles
         * @return this
         */
        public Builder yieldNanos(long nanos) {
            yieldNanos = Math.max(0, nanos);
            return this;
        }

        /**
         * @param on whether a thread that finds one of the device's CQs empty runs the engine's duty
         *     cycle itself (Aeron's agent invoker): a packet then crosses no hand-off between the
         *     engine thread and the poller, and while pollers keep polling the engine thread parks
         *     instead of spinning beside them, so a ping-pong side needs one busy thread instead
         *     of two. The engine thread takes over again when the pollers stop (1 ms after their
         *     last poll) or arm a CQ to block. Off by default: a poller that runs the engine's work also pays for it, which
         *     halves the parallelism of a throughput run (a latency knob, like perftest's busy
         *     polling)
         * @return this
         */
        public Builder invokeOnPoll(boolean on) {
            invokeOnPoll = on;
            return this;
        }

        /** @param nanos longest park with no timer due (at least 100 us) @return this */
        public Builder maxParkNanos(long nanos) {
            maxParkNanos = Math.max(100_000, nanos);
            return this;
        }

        /** @param n largest queue depth @return this */
        public Builder maxQueueWr(int n) {
            maxQueueWr = range(n, 1, 1 << 20, "max queue WRs");
            return this;
        }

        /** @param n largest CQ @return this */
        public Builder maxCqe(int n) {
            maxCqe = range(n, 1, 1 << 24, "max CQEs");
            return this;
        }

        /** @param millis control verb timeout @return this */
        public Builder commandTimeoutMillis(long millis) {
            commandTimeoutMillis = Math.max(1, millis);
            return this;
        }

        /**
         * @param offered whether the device offers SRQs (default true); false makes it advertise
         *     {@code max_srq = 0} and refuse {@code createSrq} with EOPNOTSUPP
         * @return this
         */
        public Builder sharedReceiveQueues(boolean offered) {
            sharedReceiveQueues = offered;
            return this;
        }

        /** @return the configuration (127.0.0.1 if no address was given) */
        public SoftRnicConfig build() {
            if (addresses.isEmpty()) {
                addresses.add(literal("127.0.0.1"));
            }
            return new SoftRnicConfig(this);
        }

        private static int range(int v, int min, int max, String what) {
            if (v < min || v > max) {
                throw new IllegalArgumentException(what + " must be in [" + min + ", " + max + "]: "
                        + v);
            }
            return v;
        }
    }

    /**
     * @param literal an IPv4 or IPv6 literal
     * @return the address, without a DNS lookup
     * @throws IllegalArgumentException if it is not a literal
     */
    public static InetAddress literal(String literal) {
        String s = literal.trim();
        boolean v4 = s.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = s.indexOf(':') >= 0 && s.matches("[0-9A-Fa-f:.%a-zA-Z]+");
        if (!v4 && !v6) {
            throw new IllegalArgumentException("not an IP address literal: " + literal);
        }
        try {
            return InetAddress.getByName(s);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address literal: " + literal, e);
        }
    }
}
