package dev.virtuoso.commands.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.Access;

class TransferTest {

    private static Transfer transfer(Transfer.Op op, InMemoryConnection[] c, long total, PhaseProgress p) {
        ByteBuffer src = ByteBuffer.allocateDirect(4 * 4096);
        ByteBuffer dst = ByteBuffer.allocateDirect(4 * 4096);
        Transfer.Side client = new Transfer.Side(c[0], c[0].register(src, EnumSet.of(Access.LOCAL_WRITE)), src);
        Transfer.Side server = new Transfer.Side(c[1], c[1].register(dst, EnumSet.of(Access.REMOTE_WRITE)), dst);
        return new Transfer(op, client, server, 4096, 4, total, 100, p);
    }

    @Test
    void movesAndVerifiesEveryByteWithOutOfOrderCompletionsAndARaggedEnd() throws Exception {
        for (Transfer.Op op : Transfer.Op.values()) {
            InMemoryConnection[] c = InMemoryConnection.pair();
            long total = 37 * 4096 + 123;
            PhaseProgress p = new PhaseProgress("t", total, c[0], () -> "mem");
            AtomicInteger mid = new AtomicInteger();
            Transfer.Result r = transfer(op, c, total, p).run(mid::incrementAndGet);
            assertEquals(total, r.bytes(), op.name());
            assertEquals(total, p.verifiedBytes(), op.name());
            assertEquals(1, mid.get(), "midpoint action runs once");
            assertTrue(r.midBytes() * 2 >= total && r.midBytes() < total, "midpoint near half: " + r.midBytes());
            assertTrue(r.settledBytes() >= r.midBytes() && r.settledBytes() < total, "settled after the midpoint");
            assertTrue(r.settledNanos() >= r.midNanos() && r.settledNanos() <= r.nanos());
        }
    }

    @Test
    void aCorruptedByteFailsThePhase() {
        for (Transfer.Op op : Transfer.Op.values()) {
            InMemoryConnection[] c = InMemoryConnection.pair();
            c[0].corrupt(9);
            long total = 20 * 4096;
            IOException e = assertThrows(IOException.class,
                    () -> transfer(op, c, total, new PhaseProgress("t", total, c[0], () -> "mem")).run(null));
            assertTrue(e.getMessage().contains("#9") && e.getMessage().contains("differs at byte 0"), e.getMessage());
        }
    }
}
