package dev.virtuoso.verbs.soft.udp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;
import dev.virtuoso.verbs.conformance.Mem;
import dev.virtuoso.verbs.conformance.QpPair;
import dev.virtuoso.verbs.conformance.QpSettings;
import dev.virtuoso.verbs.conformance.Rig;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;

/**
 * System test: captures a soft RNIC run on the UDP wire over loopback and checks with tshark (an
 * independent RoCEv2 decoder) that every packet is RoCEv2 with the opcodes, destination QPNs,
 * PSNs, RETH lengths, immediates and AETH syndromes the verbs called for, including a PSN wrap.
 * Skips when tshark/dumpcap or the capture permission is missing.
 */
class TsharkWireCheckTest {
    private static final int MTU = 1024;
    private static final int FIRST_PSN = 0xFFFFFC;

    @TempDir
    Path dir;

    /** Two soft RNICs on loopback aliases, each on a free UDP port. */
    private static final class LoopbackPair implements ConformanceEnvironment {
        private final SoftVerbsProvider provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("wcA").addressLiterals("127.0.0.41").udpPort(0).build(),
                SoftRnicConfig.builder("wcB").addressLiterals("127.0.0.42").udpPort(0).build());

        @Override
        public String name() {
            return "soft/udp wire check";
        }

        @Override
        public IbvContext openA() throws Exception {
            return provider.openDevice("wcA");
        }

        @Override
        public IbvContext openB() throws Exception {
            return provider.openDevice("wcB");
        }

        @Override
        public IbvMtu mtu() {
            return IbvMtu.MTU_1024;
        }

        @Override
        public boolean setLossRate(double probability) {
            return probability == 0;
        }

        @Override
        public void close() {
            provider.close();
        }
    }

    /** One decoded frame. */
    private record Frame(int srcPort, int opcode, int destQp, int psn, String dmaLen, String syndrome,
            String imm, String protocols, int udpLength) {
        boolean request() {
            return opcode <= 0x0C;
        }
    }

    @Test
    void everyPacketDecodesAsRoceV2WithTheExpectedHeaders() throws Exception {
        Path pcap = dir.resolve("soft-rnic.pcapng");
        List<Frame> frames;
        int qpA;
        int qpB;
        int portA;
        int markerPort;
        int rkeyB;
        try (LoopbackPair env = new LoopbackPair(); Rig rig = new Rig(env, 1)) {
            portA = rig.a.udpPort();
            int portB = rig.b.udpPort();
            // a 1 s retransmit timeout keeps a loaded machine from adding retransmissions
            QpPair qp = rig.connect(new QpSettings().psns(FIRST_PSN, 0x000100).timeout(18));
            qpA = qp.a().qpNum();
            qpB = qp.b().qpNum();
            int access = IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ;
            Mem memA = rig.mem(rig.pdA, 16384, access).fillRandom(1);
            Mem memB = rig.mem(rig.pdB, 16384, access).fillRandom(2);
            rkeyB = memB.mr().rkey();

            try (DatagramSocket markerSocket = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                    PacketCapture capture = PacketCapture.start("lo", "udp and (port " + portA + " or port "
                            + portB + " or port " + (markerPort = markerSocket.getLocalPort()) + ")", pcap,
                            () -> sendMarker(markerSocket))) {
                run(rig, qp, memA, memB, IbvWrOpcode.RDMA_WRITE, 0, 3 * MTU, 0);
                run(rig, qp, memA, memB, IbvWrOpcode.RDMA_WRITE, 4096, 100, 0);
                run(rig, qp, memA, memB, IbvWrOpcode.RDMA_READ, 8192, 2 * MTU + MTU / 2, 0);
                receive(rig, qp, memB);
                run(rig, qp, memA, memB, IbvWrOpcode.SEND, 0, 100, 0);
                receive(rig, qp, memB);
                run(rig, qp, memA, memB, IbvWrOpcode.SEND_WITH_IMM, 0, 64, 0x11223344);
                receive(rig, qp, memB);
                run(rig, qp, memA, memB, IbvWrOpcode.RDMA_WRITE_WITH_IMM, 12288, 200, 0x55667788);
                run(rig, qp, memA, memB, IbvWrOpcode.RDMA_READ, 0, 8, 0);
                Thread.sleep(300); // let the last packets reach the capture file
            }
            List<String> decode = List.of("-d", "udp.port==" + portA + ",infiniband", "-d",
                    "udp.port==" + portB + ",infiniband", "--disable-protocol", "rpcordma",
                    "-Y", "!(udp.port == " + markerPort + ")");
            List<String[]> rows = PacketCapture.decode(pcap, decode, List.of("udp.srcport",
                    "infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
                    "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.immdt",
                    "frame.protocols", "udp.length"));
            frames = new ArrayList<>();
            for (String[] r : rows) {
                frames.add(new Frame(Integer.parseInt(r[0]), number(r[1]), number(r[2]), number(r[3]),
                        r[4], r[5], r[6], r[7], Integer.parseInt(r[8])));
            }
        }
        check(frames, portA, qpA, qpB, rkeyB);
    }

    private static void check(List<Frame> frames, int portA, int qpA, int qpB, int rkeyB) {
        String dump = "frames:\n" + String.join("\n", frames.stream().map(Frame::toString).toList());
        assertTrue(frames.size() >= 16, dump);
        for (Frame f : frames) {
            assertTrue(f.protocols().matches(".*:ip:udp:infiniband(:data)?") && f.opcode() >= 0,
                    "not decoded as RoCEv2: " + f + "\n" + dump);
            assertEquals(udpLength(f.opcode()), f.udpLength(), "UDP length (headers, payload, ICRC) of " + f);
            assertEquals(f.srcPort() == portA ? qpB : qpA, f.destQp(), "destination QPN of " + f);
        }
        // the requester's packets, first transmissions in order
        Set<List<Integer>> requests = new LinkedHashSet<>();
        for (Frame f : frames) {
            if (f.srcPort() == portA) {
                assertTrue(f.request(), "A only sends requests: " + f);
                requests.add(List.of(f.opcode(), f.psn()));
            }
        }
        List<List<Integer>> expected = List.of(
                List.of(0x06, 0xFFFFFC), List.of(0x07, 0xFFFFFD), List.of(0x08, 0xFFFFFE), // WRITE f/m/l
                List.of(0x0A, 0xFFFFFF), // WRITE only
                List.of(0x0C, 0x000000), // READ request of 3 packets: PSNs 0..2, wrapped
                List.of(0x04, 0x000003), // SEND only
                List.of(0x05, 0x000004), // SEND only with immediate
                List.of(0x0B, 0x000005), // WRITE only with immediate
                List.of(0x0C, 0x000006)); // READ request of 1 packet
        assertEquals(expected, List.copyOf(requests), dump);

        Set<List<Integer>> responses = new LinkedHashSet<>();
        Set<Integer> ackedPsns = new LinkedHashSet<>();
        for (Frame f : frames) {
            if (f.srcPort() != portA) {
                assertTrue(f.opcode() >= 0x0D && f.opcode() <= 0x11, "B only responds: " + f);
                if (f.opcode() == 0x11) {
                    ackedPsns.add(f.psn());
                    assertTrue(number(f.syndrome()) <= 0x1F, "positive ACK syndrome: " + f);
                } else {
                    responses.add(List.of(f.opcode(), f.psn()));
                }
            }
        }
        assertEquals(List.of(List.of(0x0D, 0), List.of(0x0E, 1), List.of(0x0F, 2), List.of(0x10, 6)),
                List.copyOf(responses), "READ responses first/middle/last/only: " + dump);
        assertTrue(ackedPsns.containsAll(List.of(0xFFFFFE, 0xFFFFFF, 3, 4, 5)), "ACKs: " + ackedPsns);
        assertTrue(Set.of(0xFFFFFC, 0xFFFFFD, 0xFFFFFE, 0xFFFFFF, 3, 4, 5).containsAll(ackedPsns),
                "ACK PSNs name acknowledged requests: " + ackedPsns);

        for (Frame f : frames) {
            switch (f.opcode()) {
                case 0x06 -> assertEquals(3 * MTU, number(f.dmaLen()), "WRITE FIRST length: " + f);
                case 0x0A -> assertEquals(100, number(f.dmaLen()), "WRITE ONLY length: " + f);
                case 0x0B -> {
                    assertEquals(200, number(f.dmaLen()));
                    assertEquals("55667788", f.imm(), "immediate of " + f);
                }
                case 0x05 -> assertEquals("11223344", f.imm(), "immediate of " + f);
                case 0x0C -> assertTrue(number(f.dmaLen()) == 2 * MTU + MTU / 2 || number(f.dmaLen()) == 8,
                        "READ length: " + f);
                case 0x0D, 0x0F, 0x10 -> assertTrue(number(f.syndrome()) <= 0x1F, "READ response AETH: " + f);
                default -> {
                }
            }
        }
        assertTrue(rkeyB != 0);
    }

    /** UDP header 8 + BTH 12 + extension headers + payload + ICRC 4, for this test's messages. */
    private static int udpLength(int opcode) {
        return 8 + 12 + 4 + switch (opcode) {
            case 0x06 -> 16 + MTU; // WRITE FIRST: RETH
            case 0x07, 0x08 -> MTU; // WRITE MIDDLE, LAST
            case 0x0A -> 16 + 100; // WRITE ONLY
            case 0x0C -> 16; // READ request: RETH only
            case 0x0D -> 4 + MTU; // READ response FIRST: AETH
            case 0x0E -> MTU; // READ response MIDDLE
            case 0x0F -> 4 + MTU / 2; // READ response LAST
            case 0x10 -> 4 + 8; // READ response ONLY
            case 0x04 -> 100; // SEND ONLY
            case 0x05 -> 4 + 64; // SEND ONLY with immediate: ImmDt
            case 0x0B -> 16 + 4 + 200; // WRITE ONLY with immediate: RETH, ImmDt
            case 0x11 -> 4; // ACK: AETH
            default -> throw new AssertionError("unexpected opcode " + opcode);
        };
    }

    private static int number(String field) {
        if (field == null || field.isEmpty()) {
            return -1;
        }
        return field.startsWith("0x") ? (int) Long.parseLong(field.substring(2), 16) : (int) Long.parseLong(field);
    }

    private static void run(Rig rig, QpPair qp, Mem memA, Mem memB, IbvWrOpcode op, int offset,
            int length, int imm) throws Exception {
        IbvSendWr wr = Rig.wr(op.ordinal(), op, memA, offset, length,
                op == IbvWrOpcode.SEND || op == IbvWrOpcode.SEND_WITH_IMM ? null : memB, offset);
        wr.immData(imm);
        qp.a().postSend(wr);
        IbvWc wc = Rig.expect(rig.cqA, 1).get(0);
        assertEquals(IbvWcStatus.SUCCESS, wc.status(), op + ": " + wc);
        if (op == IbvWrOpcode.SEND || op == IbvWrOpcode.SEND_WITH_IMM || op == IbvWrOpcode.RDMA_WRITE_WITH_IMM) {
            IbvWc rc = Rig.expect(rig.cqB, 1).get(0);
            assertEquals(IbvWcStatus.SUCCESS, rc.status(), op + " receive: " + rc);
        }
    }

    private static void receive(Rig rig, QpPair qp, Mem memB) throws Exception {
        qp.b().postRecv(Rig.recv(99, memB, 0, 4096));
    }

    /** One datagram to the marker socket itself, so the capture can prove it records traffic. */
    private static void sendMarker(DatagramSocket socket) {
        try {
            socket.send(new DatagramPacket(new byte[] {'m'}, 1, socket.getLocalSocketAddress()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
