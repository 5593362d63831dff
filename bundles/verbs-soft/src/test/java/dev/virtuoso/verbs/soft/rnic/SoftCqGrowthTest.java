package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.VerbsException;

/** A CQ allocates its entries as it fills: same order, same size, same overflow as a full one. */
class SoftCqGrowthTest {
    private static boolean push(SoftCq cq, long id) {
        return cq.push(id, IbvWcStatus.SUCCESS, IbvWcOpcode.RECV, (int) id, (int) (id * 3), 0, (int) id + 1, 7, false);
    }

    @Test
    void aLargeCqStartsSmallGrowsWithWhatItHoldsAndKeepsOrder() throws Exception {
        SoftCq cq = new SoftCq(null, 4000, null);
        assertEquals(4096, cq.capacity(), "the size asked for, rounded up");
        assertEquals(SoftCq.INITIAL_ENTRIES, cq.allocatedEntries());
        IbvWc[] wcs = new IbvWc[7];
        for (int i = 0; i < wcs.length; i++) {
            wcs[i] = new IbvWc();
        }
        long next = 0;
        // 30 at a time never grows it
        for (int round = 0; round < 100; round++) {
            for (int i = 0; i < 30; i++) {
                assertTrue(push(cq, round * 30L + i));
            }
            int got;
            while ((got = cq.pollCq(wcs, wcs.length)) > 0) {
                for (int k = 0; k < got; k++, next++) {
                    assertEquals(next, wcs[k].wrId());
                    assertEquals((int) (next * 3), wcs[k].immData());
                    assertEquals((int) next + 1, wcs[k].qpNum());
                }
            }
        }
        assertEquals(3000, next);
        assertEquals(SoftCq.INITIAL_ENTRIES, cq.allocatedEntries());
        // 1000 held at once (crossing the wrap point) grow it to 1024, every entry kept
        for (long id = next; id < next + 1000; id++) {
            assertTrue(push(cq, id));
        }
        assertEquals(1024, cq.allocatedEntries());
        long end = next + 1000;
        int got;
        while ((got = cq.pollCq(wcs, wcs.length)) > 0) {
            for (int k = 0; k < got; k++, next++) {
                assertEquals(next, wcs[k].wrId());
                assertEquals((int) next, wcs[k].byteLen());
            }
        }
        assertEquals(end, next);
        // and it still overflows at its size, not at what it allocated
        for (long id = 0; id < 4096; id++) {
            assertTrue(push(cq, id));
        }
        assertFalse(push(cq, 4096));
        assertEquals(4096, cq.allocatedEntries());
        long drained = 0;
        while (drained < 4096) {
            drained += cq.pollCq(wcs, wcs.length);
        }
        assertEquals(4096, drained);
        assertEquals(VerbsException.EIO, assertThrows(VerbsException.class, () -> cq.pollCq(wcs, 1)).errno());
    }

    @Test
    void aPollerOnAnotherThreadSeesEveryCompletionOnceInOrderWhileTheCqGrows() throws Exception {
        long total = 2_000_000;
        int size = 1 << 16;
        SoftCq cq = new SoftCq(null, size, null);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicLong polled = new AtomicLong();
        Thread poller = new Thread(() -> {
            IbvWc[] wcs = new IbvWc[16];
            for (int i = 0; i < wcs.length; i++) {
                wcs[i] = new IbvWc();
            }
            long next = 0;
            try {
                long spins = 0;
                while (next < total) {
                    int got = cq.pollCq(wcs, wcs.length);
                    polled.lazySet(next + got);
                    for (int k = 0; k < got; k++, next++) {
                        if (wcs[k].wrId() != next || wcs[k].immData() != (int) (next * 3)
                                || wcs[k].qpNum() != (int) next + 1) {
                            throw new AssertionError("entry " + next + " read as " + wcs[k].wrId());
                        }
                    }
                    if (got == 0 && (++spins & 1023) == 0) {
                        Thread.yield(); // let the producer run ahead: the CQ grows
                    }
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "cq-growth-poller");
        poller.start();
        for (long id = 0; id < total; id++) {
            while (id - polled.get() >= size - 1 && poller.isAlive()) {
                Thread.yield(); // never overflow: the test is about growth, not overflow
            }
            assertTrue(push(cq, id), "pushed " + id);
            if ((id & 0x3FFF) == 0) {
                Thread.yield();
            }
        }
        poller.join(60_000);
        assertFalse(poller.isAlive(), "the poller finished");
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertEquals(total, polled.get());
        assertTrue(cq.allocatedEntries() <= 1 << 16);
    }
}
