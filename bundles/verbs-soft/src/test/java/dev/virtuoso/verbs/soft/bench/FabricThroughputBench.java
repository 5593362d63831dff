package dev.virtuoso.verbs.soft.bench;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.virtuoso.verbs.soft.fabric.FabricLink;
import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.fabric.FabricPort;
import dev.virtuoso.verbs.soft.fabric.FabricWire;
import dev.virtuoso.verbs.soft.fabric.LinkCounter;
import dev.virtuoso.verbs.soft.fabric.LinkSpec;
import dev.virtuoso.verbs.soft.wire.DatagramHandler;

/**
 * Raw datagram throughput of the in-process fabric (no RNIC engine): one sender thread on host A
 * streams 4112-byte datagrams over {@code paths} links to one receiver thread on host B, which
 * drains them the way an engine does (receive batches, park in {@code await}). A command:
 * <pre>
 * FabricThroughputBench PATHS LINK_SPEC SECONDS     e.g.  1 "" 3   or   10 "rate=200m" 3
 * </pre>
 */
public final class FabricThroughputBench {
    private static final int DATAGRAM = 4112;

    private FabricThroughputBench() {
    }

    public static void main(String[] args) throws Exception {
        int paths = args.length > 0 ? Integer.parseInt(args[0]) : 1;
        LinkSpec spec = LinkSpec.parse(args.length > 1 ? args[1] : "");
        double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 3;
        try (FabricNetwork net = new FabricNetwork("bench", 1)) {
            String[] a = new String[paths];
            String[] b = new String[paths];
            for (int i = 0; i < paths; i++) {
                a[i] = "10.0." + i + ".1";
                b[i] = "10.0." + i + ".2";
            }
            net.addHost("A", a);
            net.addHost("B", b);
            List<FabricLink> links = new ArrayList<>();
            for (int i = 0; i < paths; i++) {
                links.add(net.link(a[i], b[i], spec));
            }
            FabricWire wireA = net.wire("A");
            FabricWire wireB = net.wire("B");
            FabricPort[] senders = new FabricPort[paths];
            FabricPort[] receivers = new FabricPort[paths];
            for (int i = 0; i < paths; i++) {
                senders[i] = wireA.open(java.net.InetAddress.getByName(a[i]), 4791);
                receivers[i] = wireB.open(java.net.InetAddress.getByName(b[i]), 4791);
            }
            AtomicBoolean running = new AtomicBoolean(true);
            long[] received = new long[1];
            Thread rx = new Thread(() -> {
                DatagramHandler h = (d, s, dst) -> received[0] += d.remaining();
                try {
                    while (running.get()) {
                        int n = 0;
                        for (FabricPort p : receivers) {
                            n += p.receive(h, 64);
                        }
                        if (n == 0) {
                            wireB.await(1_000_000);
                        }
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                }
            }, "virtuoso-bench-rx");
            rx.start();
            ByteBuffer d = ByteBuffer.allocateDirect(DATAGRAM);
            InetSocketAddress[] dest = new InetSocketAddress[paths];
            for (int i = 0; i < paths; i++) {
                dest[i] = receivers[i].localAddress();
            }
            long start = System.nanoTime();
            long stop = start + (long) (seconds * 1e9);
            long sent = 0;
            while (System.nanoTime() - stop < 0) {
                for (int i = 0; i < paths; i++) {
                    d.clear();
                    senders[i].send(d, dest[i]);
                    sent++;
                }
                if (spec.rateBitsPerSecond() > 0 && (sent & 63) == 0) {
                    Thread.yield(); // a paced sender (the engine's window) would not spin either
                }
            }
            double elapsed = (System.nanoTime() - start) / 1e9;
            Thread.sleep(200);
            running.set(false);
            rx.join(2000);
            long delivered = 0;
            long dropped = 0;
            for (FabricLink l : links) {
                delivered += l.counter(LinkCounter.DELIVERED_BYTES);
                dropped += l.counter(LinkCounter.DROPPED_TAIL) + l.counter(LinkCounter.DROPPED_RX_OVERFLOW);
            }
            System.out.printf(Locale.ROOT,
                    "paths=%d spec=[%s] offered=%.3f Gbit/s delivered=%.3f Gbit/s (%.3f per path) drops=%d pooled=%d%n",
                    paths, spec, sent * (double) DATAGRAM * 8 / elapsed / 1e9, delivered * 8 / elapsed / 1e9,
                    delivered * 8 / elapsed / 1e9 / paths, dropped, net.pooledPackets());
            if (received[0] != delivered) {
                System.out.println("receiver counted " + received[0] + " bytes");
            }
        }
    }
}
