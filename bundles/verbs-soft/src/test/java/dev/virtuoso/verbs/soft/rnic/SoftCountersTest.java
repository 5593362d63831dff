package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.VerbsCounter;

/** Per-QP counters roll up into their device's; what operators read is exact. */
class SoftCountersTest {

    @Test
    void countsAddUpAndRollUpToTheParent() {
        SoftCounters device = new SoftCounters(null);
        SoftCounters qp = new SoftCounters(device);
        SoftCounters other = new SoftCounters(device);
        qp.inc(VerbsCounter.TX_PACKETS);
        qp.inc(VerbsCounter.TX_PACKETS);
        qp.add(VerbsCounter.TX_BYTES, 1500);
        other.add(VerbsCounter.TX_BYTES, 500);
        assertEquals(2, qp.get(VerbsCounter.TX_PACKETS));
        assertEquals(1500, qp.get(VerbsCounter.TX_BYTES));
        assertEquals(500, other.get(VerbsCounter.TX_BYTES));
        assertEquals(2, device.get(VerbsCounter.TX_PACKETS));
        assertEquals(2000, device.get(VerbsCounter.TX_BYTES));
        assertEquals(0, device.get(VerbsCounter.RX_PACKETS));
        device.inc(VerbsCounter.RX_PACKETS);
        assertEquals(0, qp.get(VerbsCounter.RX_PACKETS), "nothing flows down");
    }

    @Test
    void snapshotHoldsEveryCounterAndToStringOnlyTheNonZeroOnes() {
        SoftCounters c = new SoftCounters(null);
        assertEquals("{}", c.toString());
        c.add(VerbsCounter.TX_BYTES, 7);
        assertEquals("{TX_BYTES=7}", c.toString());
        c.inc(VerbsCounter.TX_PACKETS);
        assertEquals("{TX_PACKETS=1, TX_BYTES=7}", c.toString());
        Map<VerbsCounter, Long> s = c.snapshot();
        assertEquals(VerbsCounter.values().length, s.size());
        assertEquals(7L, s.get(VerbsCounter.TX_BYTES));
        assertEquals(0L, s.get(VerbsCounter.RX_BYTES));
        c.inc(VerbsCounter.TX_PACKETS);
        assertEquals(1L, s.get(VerbsCounter.TX_PACKETS), "a snapshot does not move");
        assertThrows(UnsupportedOperationException.class, () -> s.put(VerbsCounter.RX_BYTES, 1L));
    }
}
