package dev.virtuoso.verbs.soft.fabric;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import dev.virtuoso.util.DutyClaim;

/**
 * An in-process network of named hosts owning IP addresses, joined by emulated links with rate,
 * delay, tail-drop queue, seeded random loss, reordering and runtime down/up. Devices attach with
 * {@link #wire(String)}; the soft RNIC engine cannot tell it from the UDP wire.
 *
 * <p>Routing, for a packet from address s to address d: the link made for the address pair
 * (s, d), else the link made for the hosts owning s and d, else (same host) the host's implicit
 * unlimited loopback, else a link created on first use with the {@linkplain #defaultLink default
 * spec} if one is set, else the packet is dropped as "no route".
 *
 * <p>A packet is copied once, at send, into a pooled buffer. Packets due at once on an idle link
 * (unlimited rate, no delay) go straight to the receiver's queue; all others wait in a priority
 * queue ordered by delivery time, served by this network's scheduler thread
 * ({@code virtuoso-fabric-<name>}), which {@link #close()} stops, and by any thread that receives
 * on a port of the network ({@link #deliverDue}, under a claim): a thread that spins on its
 * device's receive delivers the packets that have become due itself, so on a machine whose cores
 * the spinning threads fill, deliveries do not wait for the scheduler thread's next time slice
 * (milliseconds late on a 2-core machine before).
 *
 * <p>Loss and reorder draws come from per-link-direction generators seeded from the network seed
 * and the link's name, so a run with the same traffic on the same topology drops the same packets.
 *
 * <p>Thread-safe.
 */
public final class FabricNetwork implements AutoCloseable {
    /** Largest datagram the fabric carries by default (a 4096-byte MTU packet needs 4136). */
    public static final int DEFAULT_MAX_DATAGRAM_BYTES = 8192;
    /** Default receive queue of a port, in packets (its "socket receive buffer"). */
    public static final int DEFAULT_PORT_QUEUE_PACKETS = 4096;
    private static final long MAX_PARK_NANOS = 100_000_000L;
    private static final long IDLE = Long.MIN_VALUE;

    private final String name;
    private final long seed;
    private final int maxDatagramBytes;
    private final int portQueuePackets;
    private final PacketPool pool;

    // topology, guarded by this
    private final Map<String, FabricHost> hosts = new LinkedHashMap<>();
    private final Map<InetAddress, FabricHost> owners = new HashMap<>();
    private final Map<EndPair, LinkChannel> addressRoutes = new HashMap<>();
    private final Map<EndPair, LinkChannel> hostRoutes = new HashMap<>();
    private final Map<String, FabricLink> loopbacks = new HashMap<>();
    private final Map<String, FabricLink> links = new LinkedHashMap<>();
    private final List<FabricWire> wires = new ArrayList<>();
    private LinkSpec defaultLink;
    private int nextEphemeralPort = 49152;
    private volatile int topologyVersion;

    private final ConcurrentHashMap<InetSocketAddress, FabricPort> bindings = new ConcurrentHashMap<>();
    private final AtomicLong noRoute = new AtomicLong();

    // scheduler
    private final MpmcRing<Packet> submissions = new MpmcRing<>(1 << 16);
    private final PriorityQueue<Packet> due = new PriorityQueue<>(1024, (a, b) -> {
        long d = a.deliverAt - b.deliverAt;
        return d != 0 ? (d < 0 ? -1 : 1) : Long.compare(a.sequence, b.sequence);
    });
    private long nextSequence;
    /** Whoever moves packets from {@link #submissions} to {@link #due} and delivers them: one thread at a time. */
    private final DutyClaim scheduling = new DutyClaim();
    /**
     * Delivery time of the earliest packet waiting, {@link Long#MAX_VALUE} if none: lowered by
     * {@link #schedule} (after its offer), set by the holder of {@link #scheduling} after a pass;
     * read by receivers to skip the claim while nothing is due.
     */
    private final AtomicLong nextDue = new AtomicLong(Long.MAX_VALUE);
    private final Thread scheduler;
    private volatile long schedulerWakeAt = IDLE;
    private volatile boolean running = true;

    /**
     * Creates a network with seed 0 and default sizes.
     *
     * @param name used in the scheduler thread's name
     */
    public FabricNetwork(String name) {
        this(name, 0, DEFAULT_MAX_DATAGRAM_BYTES, DEFAULT_PORT_QUEUE_PACKETS);
    }

    /**
     * @param name used in the scheduler thread's name
     * @param seed seed of every loss and reorder draw
     */
    public FabricNetwork(String name, long seed) {
        this(name, seed, DEFAULT_MAX_DATAGRAM_BYTES, DEFAULT_PORT_QUEUE_PACKETS);
    }

    /**
     * @param name used in the scheduler thread's name
     * @param seed seed of every loss and reorder draw
     * @param maxDatagramBytes largest datagram carried (size of each pooled buffer)
     * @param portQueuePackets receive queue length of each port
     */
    public FabricNetwork(String name, long seed, int maxDatagramBytes, int portQueuePackets) {
        this(name, seed, maxDatagramBytes, portQueuePackets, true);
    }

    /**
     * @param schedulerThread false: no scheduler thread, the receivers alone deliver the packets
     *     that wait (tests: nothing else can then deliver them)
     */
    FabricNetwork(String name, long seed, int maxDatagramBytes, int portQueuePackets, boolean schedulerThread) {
        if (maxDatagramBytes < 64 || maxDatagramBytes > 65536) {
            throw new IllegalArgumentException("maxDatagramBytes must be 64..65536: " + maxDatagramBytes);
        }
        if (portQueuePackets < 2) {
            throw new IllegalArgumentException("portQueuePackets must be >= 2: " + portQueuePackets);
        }
        this.name = name;
        this.seed = seed;
        this.maxDatagramBytes = maxDatagramBytes;
        this.portQueuePackets = portQueuePackets;
        this.pool = new PacketPool(maxDatagramBytes);
        if (schedulerThread) {
            this.scheduler = new Thread(this::runScheduler, "virtuoso-fabric-" + name);
            scheduler.setDaemon(true);
            scheduler.start();
        } else {
            this.scheduler = null;
        }
    }

    /**
     * Builds a network from the text form (see {@link FabricSpec}).
     *
     * @param name network name
     * @param spec e.g. {@code "A=10.0.0.1 B=10.0.0.2; link A-B rate=1g delay=50us"}
     * @return the running network
     * @throws FabricSpecException if the text is invalid
     */
    public static FabricNetwork fromSpec(String name, String spec) {
        return FabricSpec.parse(spec).build(name);
    }

    /** @return the name */
    public String name() {
        return name;
    }

    /** @return the seed of the loss and reorder draws */
    public long seed() {
        return seed;
    }

    /** @return the largest datagram carried */
    public int maxDatagramBytes() {
        return maxDatagramBytes;
    }

    /**
     * Adds a host.
     *
     * @param hostName unique name
     * @param addresses addresses it owns, unique in the network
     * @return the host
     * @throws IllegalArgumentException for a duplicate name or address
     */
    public synchronized FabricHost addHost(String hostName, InetAddress... addresses) {
        if (hostName == null || hostName.isEmpty() || hostName.contains("-")) {
            throw new IllegalArgumentException("host name must be non-empty without '-': " + hostName);
        }
        if (hosts.containsKey(hostName)) {
            throw new IllegalArgumentException("host " + hostName + " already exists");
        }
        FabricHost host = new FabricHost(hostName, Arrays.asList(addresses));
        for (InetAddress a : host.addresses()) {
            FabricHost other = owners.get(a);
            if (other != null) {
                throw new IllegalArgumentException(a.getHostAddress() + " already belongs to host "
                        + other.name());
            }
        }
        for (InetAddress a : host.addresses()) {
            owners.put(a, host);
        }
        hosts.put(hostName, host);
        topologyVersion++;
        return host;
    }

    /**
     * Adds a host from address literals (never resolved through DNS).
     *
     * @param hostName unique name
     * @param addressLiterals e.g. {@code "10.0.0.1"}
     * @return the host
     */
    public FabricHost addHost(String hostName, String... addressLiterals) {
        InetAddress[] addresses = new InetAddress[addressLiterals.length];
        for (int i = 0; i < addresses.length; i++) {
            addresses[i] = AddressLiterals.parse(addressLiterals[i]);
        }
        return addHost(hostName, addresses);
    }

    /** @return the host with that name, if any */
    public synchronized Optional<FabricHost> host(String hostName) {
        return Optional.ofNullable(hosts.get(hostName));
    }

    /** @return every host, in the order added */
    public synchronized List<FabricHost> hosts() {
        return List.copyOf(hosts.values());
    }

    /**
     * Makes a link between two addresses (one path) or two hosts (shared by their address pairs
     * that have no link of their own).
     *
     * @param endA an address literal or host name
     * @param endB an address literal or host name, of the same kind as {@code endA}
     * @param spec link properties
     * @return the new link
     * @throws IllegalArgumentException for unknown ends, mixed kinds, the same end twice, or a
     *     duplicate link
     */
    public synchronized FabricLink link(String endA, String endB, LinkSpec spec) {
        boolean addressA = AddressLiterals.looksLikeAddress(endA);
        boolean addressB = AddressLiterals.looksLikeAddress(endB);
        if (addressA != addressB) {
            throw new IllegalArgumentException("link " + endA + "-" + endB
                    + ": both ends must be addresses or both host names");
        }
        if (addressA) {
            return link(AddressLiterals.parse(endA), AddressLiterals.parse(endB), spec);
        }
        FabricHost a = knownHost(endA);
        FabricHost b = knownHost(endB);
        if (a == b) {
            throw new IllegalArgumentException("link " + endA + "-" + endB + ": needs two different hosts");
        }
        EndPair key = new EndPair(a.name(), b.name());
        if (hostRoutes.containsKey(key)) {
            throw new IllegalArgumentException("hosts " + a.name() + " and " + b.name()
                    + " are already linked");
        }
        FabricLink link = newLink(a.name(), b.name(), spec);
        hostRoutes.put(key, link.aToB());
        hostRoutes.put(new EndPair(b.name(), a.name()), link.bToA());
        return link;
    }

    /**
     * Makes a link between two addresses: one path.
     *
     * @param a an address owned by some host
     * @param b an address owned by some host
     * @param spec link properties
     * @return the new link
     */
    public synchronized FabricLink link(InetAddress a, InetAddress b, LinkSpec spec) {
        knownAddress(a);
        knownAddress(b);
        if (a.equals(b)) {
            throw new IllegalArgumentException("link " + a.getHostAddress() + ": needs two addresses");
        }
        if (addressRoutes.containsKey(new EndPair(a, b))) {
            throw new IllegalArgumentException(a.getHostAddress() + " and " + b.getHostAddress()
                    + " are already linked");
        }
        return addressLink(a, b, spec);
    }

    private FabricLink addressLink(InetAddress a, InetAddress b, LinkSpec spec) {
        FabricLink link = newLink(a.getHostAddress(), b.getHostAddress(), spec);
        addressRoutes.put(new EndPair(a, b), link.aToB());
        addressRoutes.put(new EndPair(b, a), link.bToA());
        return link;
    }

    private FabricLink newLink(String endA, String endB, LinkSpec spec) {
        String linkName = endA + "-" + endB;
        long linkSeed = new SplittableRandom(seed ^ ((long) linkName.hashCode() * 0x9E3779B97F4A7C15L)).nextLong();
        FabricLink link = new FabricLink(endA, endB, spec, linkSeed);
        links.put(linkName, link);
        topologyVersion++;
        return link;
    }

    /**
     * Sets the spec of links made on first use between addresses that have no route otherwise
     * (each address pair gets its own link).
     *
     * @param spec the spec, or null for none (unlinked pairs have no route)
     */
    public synchronized void defaultLink(LinkSpec spec) {
        defaultLink = spec;
        topologyVersion++;
    }

    /**
     * Finds a link by its ends, in either order.
     *
     * @param endA address literal or host name
     * @param endB address literal or host name
     * @return the link, if one was made between exactly these ends
     */
    public synchronized Optional<FabricLink> findLink(String endA, String endB) {
        FabricLink l = links.get(normalize(endA) + "-" + normalize(endB));
        if (l == null) {
            l = links.get(normalize(endB) + "-" + normalize(endA));
        }
        return Optional.ofNullable(l);
    }

    private static String normalize(String end) {
        return AddressLiterals.looksLikeAddress(end) ? AddressLiterals.parse(end).getHostAddress() : end;
    }

    /** @return every link made so far (explicit, then those made on first use), in order */
    public synchronized List<FabricLink> links() {
        return List.copyOf(links.values());
    }

    /**
     * The implicit link carrying traffic between addresses of the same host.
     *
     * @param hostName the host
     * @return its loopback link
     */
    public synchronized FabricLink loopback(String hostName) {
        FabricHost h = knownHost(hostName);
        return loopbacks.computeIfAbsent(h.name(),
                n -> new FabricLink(n, n, LinkSpec.UNLIMITED, seed));
    }

    /**
     * @return a {@link dev.virtuoso.verbs.soft.fabric.api.FabricControl} view of this network, for
     *     registration as a service
     */
    public dev.virtuoso.verbs.soft.fabric.api.FabricControl control() {
        return new FabricNetworkControl(this);
    }

    /** @return datagrams dropped because no link led to their destination */
    public long droppedNoRoute() {
        return noRoute.get();
    }

    /**
     * Attaches a device on a host.
     *
     * @param hostName the host whose addresses the device may use
     * @return a new wire, closed by the device or by {@link #close()}
     */
    public synchronized FabricWire wire(String hostName) {
        if (!running) {
            throw new IllegalStateException("fabric " + name + " is closed");
        }
        FabricWire w = new FabricWire(this, knownHost(hostName));
        wires.add(w);
        return w;
    }

    synchronized void removeWire(FabricWire w) {
        wires.remove(w);
    }

    private FabricHost knownHost(String hostName) {
        FabricHost h = hosts.get(hostName);
        if (h == null) {
            throw new IllegalArgumentException("no host named '" + hostName + "' (hosts: "
                    + hosts.keySet() + ")");
        }
        return h;
    }

    private FabricHost knownAddress(InetAddress a) {
        FabricHost h = owners.get(a);
        if (h == null) {
            throw new IllegalArgumentException(a.getHostAddress() + " belongs to no host");
        }
        return h;
    }

    int topologyVersion() {
        return topologyVersion;
    }

    PacketPool pool() {
        return pool;
    }

    /** @return the pooled packets allocated so far; stops growing in steady state */
    public long pooledPackets() {
        return pool.allocated();
    }

    void countNoRoute() {
        noRoute.incrementAndGet();
    }

    /** Slow path of a port's route cache. */
    synchronized LinkChannel route(InetAddress source, InetAddress destination) {
        LinkChannel c = addressRoutes.get(new EndPair(source, destination));
        if (c != null) {
            return c;
        }
        FabricHost from = owners.get(source);
        FabricHost to = owners.get(destination);
        if (from == null || to == null) {
            return null;
        }
        c = hostRoutes.get(new EndPair(from.name(), to.name()));
        if (c != null) {
            return c;
        }
        if (from == to) {
            return loopback(from.name()).aToB();
        }
        if (defaultLink != null) {
            return addressLink(source, destination, defaultLink).aToB();
        }
        return null;
    }

    FabricPort bind(FabricWire wire, InetAddress address, int udpPort) throws IOException {
        if (udpPort < 0 || udpPort > 65535) {
            throw new IllegalArgumentException("UDP port out of range: " + udpPort);
        }
        synchronized (this) {
            if (!running) {
                throw new IOException("fabric " + name + " is closed");
            }
            int port = udpPort;
            if (port == 0) {
                for (int tries = 0; tries < 16384; tries++) {
                    int candidate = nextEphemeralPort;
                    nextEphemeralPort = candidate == 65535 ? 49152 : candidate + 1;
                    if (!bindings.containsKey(new InetSocketAddress(address, candidate))) {
                        port = candidate;
                        break;
                    }
                }
                if (port == 0) {
                    throw new BindException("no free fabric port on " + address.getHostAddress());
                }
            }
            InetSocketAddress local = new InetSocketAddress(address, port);
            FabricPort p = new FabricPort(wire, this, local, portQueuePackets);
            if (bindings.putIfAbsent(local, p) != null) {
                throw new BindException("fabric address in use: " + address.getHostAddress() + ":" + port);
            }
            return p;
        }
    }

    void unbind(FabricPort port) {
        bindings.remove(port.localAddress(), port);
    }

    FabricPort boundPort(InetSocketAddress address) {
        return bindings.get(address);
    }

    /** Hands a due packet to its receiver, on the sender's or the scheduler's thread. */
    void deliver(Packet p) {
        LinkChannel channel = p.channel;
        FabricPort target = p.target;
        int length = p.length;
        if (p.epoch != channel.epoch()) {
            channel.count(LinkCounter.DROPPED_DOWN);
            pool.release(p);
        } else if (target.isClosed()) {
            channel.count(LinkCounter.DROPPED_NO_ENDPOINT);
            pool.release(p);
        } else if (!target.inbox.offer(p)) {
            channel.count(LinkCounter.DROPPED_RX_OVERFLOW);
            pool.release(p);
        } else {
            // p may already be recycled by the receiver here: use only the locals
            channel.delivered(length);
            target.wire().signal();
        }
    }

    /** Queues a packet for the scheduler thread. */
    void schedule(Packet p) {
        LinkChannel channel = p.channel;
        long deliverAt = p.deliverAt;
        channel.scheduled.incrementAndGet();
        if (!running || !submissions.offer(p)) {
            channel.scheduled.decrementAndGet();
            channel.count(LinkCounter.DROPPED_TAIL);
            pool.release(p);
            return;
        }
        for (long cur; earlier(deliverAt, cur = nextDue.get()) && !nextDue.compareAndSet(cur, deliverAt); ) {
            // lowered by another packet meanwhile: compare again
        }
        wakeScheduler(deliverAt);
    }

    /** @return true if time {@code a} comes before {@code b}, {@link Long#MAX_VALUE} meaning never */
    private static boolean earlier(long a, long b) {
        return a != Long.MAX_VALUE && (b == Long.MAX_VALUE || a - b < 0);
    }

    /** Unparks the scheduler thread if it parks until later than {@code deliverAt}. */
    private void wakeScheduler(long deliverAt) {
        long wakeAt = schedulerWakeAt;
        // IDLE: the scheduler is running and drains submissions before it parks again
        if (wakeAt != IDLE && earlier(deliverAt, wakeAt) && scheduler != null) {
            LockSupport.unpark(scheduler);
        }
    }

    /**
     * A receiving thread (a port's {@link FabricPort#receive}): delivers the packets that are due,
     * unless nothing is or another thread is at it. Costs a volatile read while nothing waits.
     */
    void deliverDue() {
        long next = nextDue.get();
        if (next == Long.MAX_VALUE || next - System.nanoTime() > 0 || !running || !scheduling.claim()) {
            return;
        }
        try {
            next = schedulingPass();
        } finally {
            scheduling.release();
        }
        // the scheduler thread may have parked until a later time it read before this pass
        wakeScheduler(next);
    }

    /**
     * Holder of {@link #scheduling}: takes the submissions and delivers every packet that is due.
     *
     * @return the delivery time of the earliest packet left, {@link Long#MAX_VALUE} if none
     */
    private long schedulingPass() {
        Packet p;
        long next;
        do {
            while ((p = submissions.poll()) != null) {
                p.sequence = nextSequence++;
                due.add(p);
            }
            long now = System.nanoTime();
            while ((p = due.peek()) != null && p.deliverAt - now <= 0) {
                due.poll();
                LinkChannel channel = p.channel;
                deliver(p);
                channel.scheduled.decrementAndGet();
            }
            next = p == null ? Long.MAX_VALUE : p.deliverAt;
            nextDue.set(next);
            // a packet offered after the poll above lowered nextDue before the set: take it now
        } while (!submissions.isEmpty());
        return next;
    }

    private void runScheduler() {
        while (running) {
            long next;
            if (scheduling.claim()) {
                try {
                    next = schedulingPass();
                } finally {
                    scheduling.release();
                }
            } else {
                next = nextDue.get(); // a receiving thread is at it; its pass wakes this thread if needed
            }
            schedulerWakeAt = next;
            // re-read after publishing the wake time: a receiver's pass that set an earlier one
            // either is seen here or sees this wake time and unparks (both are volatile accesses)
            if (!submissions.isEmpty() || earlier(nextDue.get(), next)) {
                schedulerWakeAt = IDLE;
                continue;
            }
            long wait = next == Long.MAX_VALUE ? MAX_PARK_NANOS : Math.min(next - System.nanoTime(), MAX_PARK_NANOS);
            if (wait > 0) {
                LockSupport.parkNanos(this, wait);
            }
            schedulerWakeAt = IDLE;
        }
        releaseWaiting();
    }

    /** After the stop: releases the packets still waiting (receivers stop entering; one inside finishes its pass). */
    private void releaseWaiting() {
        long giveUp = System.nanoTime() + 1_000_000_000L;
        while (!scheduling.claim()) {
            if (System.nanoTime() - giveUp > 0) {
                return; // the packets stay unreleased: only pooled buffers, collected with the network
            }
            Thread.onSpinWait();
        }
        try {
            Packet p;
            while ((p = submissions.poll()) != null) {
                pool.release(p);
            }
            while ((p = due.poll()) != null) {
                pool.release(p);
            }
        } finally {
            scheduling.release();
        }
    }

    /** Stops the scheduler (packets in flight are dropped) and closes every wire. Idempotent. */
    @Override
    public void close() {
        List<FabricWire> toClose;
        synchronized (this) {
            if (!running) {
                return;
            }
            running = false;
            toClose = new ArrayList<>(wires);
        }
        if (scheduler != null) {
            LockSupport.unpark(scheduler);
            try {
                scheduler.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else {
            releaseWaiting();
        }
        for (FabricWire w : toClose) {
            w.close();
        }
    }

    /** @return the ports currently bound (for diagnostics) */
    public Collection<FabricPort> ports() {
        return List.copyOf(bindings.values());
    }

    @Override
    public String toString() {
        return "fabric " + name;
    }

    /** Ordered pair of link ends (addresses or host names) used as a routing key. */
    private record EndPair(Object from, Object to) {
    }
}
