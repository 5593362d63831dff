package dev.virtuoso.itests.robustness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.spi.verbs.IbvAccess;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvMr;
import dev.virtuoso.spi.verbs.IbvMtu;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.IbvQp;
import dev.virtuoso.spi.verbs.IbvQpAttr;
import dev.virtuoso.spi.verbs.IbvQpInitAttr;
import dev.virtuoso.spi.verbs.IbvQpState;
import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.verbs.soft.SoftRnicConfig;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;
import dev.virtuoso.verbs.soft.packet.Icrc;
import dev.virtuoso.verbs.soft.packet.PacketBuilder;
import dev.virtuoso.verbs.soft.packet.RcOpcode;

/**
 * Seeded fuzzing of the soft RNIC's receive path over real UDP: the regression corpus
 * ({@code fuzz-corpus/soft-rnic/*.txt}, one scenario per file on a fresh QP) and random, mostly
 * near-valid packets (unknown QPN, bad rkey, RETH out of range, truncated, PSN far off, wrong opcode
 * sequence, corrupted ICRC) go to device {@code b}. Afterwards the engine runs, the guard bytes around
 * the registered region are intact, every certainly-bad packet was counted as a drop, and a real
 * multipath transfer through that device succeeds.
 */
class SoftRnicFuzzTest {
    private static final byte[] VICTIM_IP = {127, 0, 0, 71};
    private static final byte[] FUZZER_IP = {127, 0, 0, 73};
    private static final int MTU = 1024;
    private static final int GUARD = 4096;
    private static final int REGION = 8192;
    private static final byte CANARY = (byte) 0xC5;
    private static final int START_PSN = 100;
    private static final long SEED = 0x5EEDL;
    private static final int RANDOM_PACKETS = 4000;
    private static final int MAX_UNREAD = 48;

    private SoftVerbsProvider provider;
    private IbvContext ctx;
    private IbvPd pd;
    private IbvCq cq;
    private IbvMr mr;
    private ByteBuffer memory;
    private DatagramChannel fuzzer;
    private InetSocketAddress victim;
    private final PacketBuilder builder = new PacketBuilder();
    private final Icrc icrc = new Icrc();
    private final List<IbvQp> qps = new ArrayList<>();
    private long certainGarbage;
    private long sent;
    private long rxBefore;

    @BeforeEach
    void setUp() throws Exception {
        provider = new SoftVerbsProvider(
                SoftRnicConfig.builder("a").addressLiterals("127.0.0.72").udpPort(0).icrcCheck(true).build(),
                SoftRnicConfig.builder("b").addressLiterals("127.0.0.71").udpPort(0).icrcCheck(true).build());
        ctx = provider.openDevice("b");
        pd = ctx.allocPd();
        cq = ctx.createCq(256, null);
        memory = ByteBuffer.allocateDirect(GUARD + REGION + GUARD);
        for (int i = 0; i < memory.capacity(); i++) {
            memory.put(i, CANARY);
        }
        mr = pd.regMr(memory.slice(GUARD, REGION),
                IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ);
        fuzzer = DatagramChannel.open();
        fuzzer.bind(new InetSocketAddress("127.0.0.73", 0));
        fuzzer.configureBlocking(false);
        victim = new InetSocketAddress("127.0.0.71", ctx.udpPort());
    }

    @AfterEach
    void tearDown() throws IOException {
        fuzzer.close();
        provider.close();
    }

    private IbvQp freshQp() throws Exception {
        IbvQp qp = pd.createQp(new IbvQpInitAttr().sendCq(cq).recvCq(cq));
        qp.modifyQp(new IbvQpAttr().qpState(IbvQpState.INIT).qpAccessFlags(
                IbvAccess.LOCAL_WRITE | IbvAccess.REMOTE_WRITE | IbvAccess.REMOTE_READ), IbvQpAttr.MASK_INIT);
        IbvQpAttr rtr = new IbvQpAttr().qpState(IbvQpState.RTR).pathMtu(IbvMtu.MTU_1024)
                .destQpNum(0x77).rqPsn(START_PSN).maxDestRdAtomic(4).minRnrTimer(1);
        InetSocketAddress me = (InetSocketAddress) fuzzer.getLocalAddress();
        rtr.ahAttr().dgid(me.getAddress()).udpPort(me.getPort());
        qp.modifyQp(rtr, IbvQpAttr.MASK_RTR);
        qps.add(qp);
        return qp;
    }

    /** Builds, mutates and sends one packet at {@code qp}. */
    private void send(IbvQp qp, FuzzPacket p) throws Exception {
        int qpn = p.unknownQp() ? (qp.qpNum() ^ 0x00A5_0000) : qp.qpNum();
        builder.begin(p.op(), false, qpn, true, START_PSN + p.psnOffset(), p.payload());
        if ((RcOpcode.flags(p.op()) & RcOpcode.RETH) != 0) {
            builder.reth(mr.address() + p.vaOffset(), p.goodRkey() ? mr.rkey() : mr.rkey() ^ 0x5A5A, p.dma());
        }
        ByteBuffer b = builder.buffer();
        for (int i = 0; i < p.payload(); i++) {
            b.put(builder.payloadOffset() + i, (byte) (0x30 + (i & 15)));
        }
        if (p.opByte() >= 0) {
            b.put(0, (byte) p.opByte());
        }
        if (p.flip() >= 0 && p.flip() < builder.length() - RcOpcode.ICRC_BYTES) {
            b.put(p.flip(), (byte) ~b.get(p.flip()));
        }
        InetSocketAddress me = (InetSocketAddress) fuzzer.getLocalAddress();
        ByteBuffer d = builder.finish(icrc, FUZZER_IP, VICTIM_IP, me.getPort(), victim.getPort());
        if (!p.goodIcrc()) {
            d.put(d.limit() - 1, (byte) (d.get(d.limit() - 1) ^ 0x81));
        }
        if (p.trunc() >= 0 && p.trunc() < d.limit()) {
            d.limit(p.trunc());
        }
        if (p.certainGarbage()) {
            certainGarbage++;
        }
        transmit(d);
    }

    /**
     * Sends one datagram, keeping at most {@value #MAX_UNREAD} unread by the engine so that the
     * socket buffer never overflows, however slow the machine: every datagram must reach the engine.
     */
    private void transmit(ByteBuffer d) throws Exception {
        while (fuzzer.send(d, victim) == 0) {
            Thread.sleep(1);
        }
        sent++;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (ctx.counters().get(VerbsCounter.RX_PACKETS) - rxBefore < sent - MAX_UNREAD
                && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
    }

    @Test
    void corpusAndRandomPacketsAreSurvivedCountedAndNeverWrittenOutsideTheRegion() throws Exception {
        VerbsCounters dev = ctx.counters();
        rxBefore = dev.get(VerbsCounter.RX_PACKETS);
        long dropsBefore = Drops.sum(dev);

        int scenarios = 0;
        for (String name : Corpus.list("fuzz-corpus/soft-rnic")) {
            IbvQp qp = freshQp();
            for (String line : Corpus.lines("fuzz-corpus/soft-rnic/" + name)) {
                send(qp, FuzzPacket.parse(line));
            }
            scenarios++;
        }
        assertTrue(scenarios >= 8, "regression corpus missing: " + scenarios + " scenarios");

        SplittableRandom r = new SplittableRandom(SEED);
        IbvQp qp = freshQp();
        for (int i = 0; i < RANDOM_PACKETS; i++) {
            if (i % 200 == 0) {
                qp = freshQp(); // errors move QPs to ERR; keep reaching the deeper checks
            }
            // pure noise now and then, beside the near-valid packets
            if (r.nextInt(10) == 0) {
                byte[] junk = new byte[r.nextInt(1, 1400)];
                for (int k = 0; k < junk.length; k++) {
                    junk[k] = (byte) r.nextInt();
                }
                certainGarbage++;
                transmit(ByteBuffer.wrap(junk));
                continue;
            }
            send(qp, FuzzPacket.random(r, MTU, REGION));
        }

        long deadline = System.nanoTime() + 20_000_000_000L;
        while (dev.get(VerbsCounter.RX_PACKETS) - rxBefore < sent && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(provider.device("b").isRunning(), "engine died");
        assertEquals(sent, dev.get(VerbsCounter.RX_PACKETS) - rxBefore, "packets lost before the engine: " + dev);
        for (int i = 0; i < GUARD; i++) {
            assertEquals(CANARY, memory.get(i), "written below the region at " + (i - GUARD));
            assertEquals(CANARY, memory.get(GUARD + REGION + i), "written past the region at +" + i);
        }
        long drops = Drops.sum(dev) - dropsBefore;
        assertTrue(drops >= certainGarbage, "drops " + drops + " < certain garbage " + certainGarbage + ": " + dev);
        assertFalse(qps.isEmpty());

        // the device still does real work: a multipath connection through it moves 1 MiB intact
        try (MultipathPair pair = new MultipathPair(provider)) {
            MultipathConnection[] cs = pair.connect();
            ByteBuffer src = ByteBuffer.allocateDirect(1 << 20);
            ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
            MultipathPair.fill(src, SEED);
            MultipathPair.writeAndVerify(cs[0], cs[1], src, dst, 60);
            cs[0].close();
            cs[1].close();
        }
    }

    /** Reads corpus files from the test class path. */
    static final class Corpus {
        private Corpus() {
        }

        static List<String> list(String dir) throws IOException {
            List<String> names = new ArrayList<>();
            for (String line : lines(dir + "/index")) {
                names.add(line);
            }
            return names;
        }

        static List<String> lines(String resource) throws IOException {
            List<String> out = new ArrayList<>();
            try (InputStream in = SoftRnicFuzzTest.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IOException("no resource " + resource);
                }
                BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                String line;
                while ((line = r.readLine()) != null) {
                    line = line.strip();
                    if (!line.isEmpty() && !line.startsWith("#")) {
                        out.add(line);
                    }
                }
            }
            return out;
        }
    }
}
