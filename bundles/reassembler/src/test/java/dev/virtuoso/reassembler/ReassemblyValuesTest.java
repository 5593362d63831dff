package dev.virtuoso.reassembler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import java.util.function.ToLongFunction;

import org.junit.jupiter.api.Test;

import dev.virtuoso.reassembler.ReassemblyCounters.Counter;

/** The reassembler's value types: counters, config limits, send targets, wr_id tag. */
class ReassemblyValuesTest {
    /** The slot wr_id tag, as the engine assigns it. */
    private static final long TAG = 2L << 60;

    private static final Map<Counter, ToLongFunction<ReassemblyCounters>> READ = new EnumMap<>(Counter.class);

    static {
        READ.put(Counter.SMALL, ReassemblyCounters::smallReceived);
        READ.put(Counter.LARGE, ReassemblyCounters::largeReceived);
        READ.put(Counter.FAILED, ReassemblyCounters::receivesFailed);
        READ.put(Counter.COPIED, ReassemblyCounters::bytesCopied);
        READ.put(Counter.DUPLICATE, ReassemblyCounters::duplicates);
        READ.put(Counter.SLOT_ERROR, ReassemblyCounters::slotErrors);
        READ.put(Counter.CONTROL, ReassemblyCounters::controlSent);
        READ.put(Counter.CREDIT, ReassemblyCounters::creditsReturned);
        READ.put(Counter.CREDIT_WAIT, ReassemblyCounters::sendsWaitingForCredit);
        READ.put(Counter.NOTICE_SENT, ReassemblyCounters::noticesSent);
        READ.put(Counter.NOTICE_RECEIVED, ReassemblyCounters::noticesReceived);
        READ.put(Counter.NOTICE_FALLBACK, ReassemblyCounters::noticeFallbacks);
        READ.put(Counter.REPORT_RECEIVED, ReassemblyCounters::placementReportsReceived);
        READ.put(Counter.VIOLATION, ReassemblyCounters::violations);
        READ.put(Counter.SMALL_ZERO_COPY, ReassemblyCounters::smallZeroCopy);
        READ.put(Counter.SMALL_COPIED, ReassemblyCounters::smallCopied);
        READ.put(Counter.CONTROL_RECEIVED, ReassemblyCounters::controlReceived);
        READ.put(Counter.CONTROL_RESENT, ReassemblyCounters::controlResent);
        READ.put(Counter.SMALL_INLINE, ReassemblyCounters::smallInline);
        READ.put(Counter.SENT_INLINE, ReassemblyCounters::sentInline);
    }

    @Test
    void addRaisesExactlyTheNamedCounterByN() {
        assertEquals(Counter.values().length, READ.size());
        for (Counter c : Counter.values()) {
            ReassemblyCounters counters = new ReassemblyCounters();
            counters.add(c, 3);
            counters.add(c, 4);
            for (Counter other : Counter.values()) {
                assertEquals(other == c ? 7 : 0, READ.get(other).applyAsLong(counters), c + " -> " + other);
            }
        }
    }

    @Test
    void countersToStringNamesEveryValue() {
        ReassemblyCounters counters = new ReassemblyCounters();
        int n = 1;
        for (Counter c : Counter.values()) {
            counters.add(c, n++);
        }
        assertEquals("ReassemblyCounters[small=1, large=2, failed=3, copied=4, duplicates=5, slotErrors=6, control=7,"
                + " controlReceived=17, controlResent=18, credits=8, creditWaits=9, noticesSent=10, noticesReceived=11, noticeFallbacks=12,"
                + " reportsReceived=13, violations=14, smallZeroCopy=15, smallCopied=16,"
                + " smallInline=19, sentInline=20]", counters.toString());
    }

    @Test
    void configAcceptsItsLimitsAndRejectsBeyondThem() {
        ReassemblyConfig c = new ReassemblyConfig("c", 1, 1, 1, 0, TAG);
        assertEquals(1, c.maxReceives());
        assertEquals(ReassemblyConfig.MAX_SLOT_BYTES,
                new ReassemblyConfig("c", 1, 1, ReassemblyConfig.MAX_SLOT_BYTES, 0, TAG).slotBytes());
        assertThrows(IllegalArgumentException.class, () -> new ReassemblyConfig(null, 1, 1, 1, 0, TAG));
        assertThrows(IllegalArgumentException.class, () -> new ReassemblyConfig("c", 0, 1, 1, 0, TAG));
        assertThrows(IllegalArgumentException.class, () -> new ReassemblyConfig("c", 1, 0, 1, 0, TAG));
        assertThrows(IllegalArgumentException.class, () -> new ReassemblyConfig("c", 1, 1, 0, 0, TAG));
        assertThrows(IllegalArgumentException.class,
                () -> new ReassemblyConfig("c", 1, 1, ReassemblyConfig.MAX_SLOT_BYTES + 1, 0, TAG));
        assertThrows(IllegalArgumentException.class, () -> new ReassemblyConfig("c", 1, 1, 1, -1, TAG));
    }

    @Test
    void sendTargetHoldsWhatWasSet() {
        SendTarget t = new SendTarget();
        assertSame(t, t.set(42, 7, 0x1000, 9));
        assertEquals(42, t.sequence());
        assertEquals(7, t.immData());
        assertEquals(0x1000, t.remoteAddr());
        assertEquals(9, t.rkey());
        assertFalse(t.direct());
        assertSame(t, t.set(43, 8, 0x2000, 10, true));
        assertTrue(t.direct());
        assertEquals(0x2000, t.remoteAddr());
        t.set(44, 9, 0, 0);
        assertFalse(t.direct(), "the four-argument form is never direct");
    }

    @Test
    void theConfigTakesOnlyAWrIdTag() {
        assertEquals(TAG, new ReassemblyConfig("c", 1, 1, 1, 0, TAG).wrIdTag());
        assertThrows(IllegalArgumentException.class, () -> new ReassemblyConfig("c", 1, 1, 1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new ReassemblyConfig("c", 1, 1, 1, 0, TAG | 5));
    }
}
