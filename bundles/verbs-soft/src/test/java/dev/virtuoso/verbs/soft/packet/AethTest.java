package dev.virtuoso.verbs.soft.packet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** AETH syndromes (IBA 9.7.5.2.8) and the RNR timer table (IBA table 45). */
class AethTest {

    @Test
    void theTopThreeBitsSayAckRnrNakOrNak() {
        assertTrue(Aeth.isAck(0x00));
        assertTrue(Aeth.isAck(Aeth.ACK_UNLIMITED));
        assertFalse(Aeth.isAck(Aeth.RNR_NAK));
        assertTrue(Aeth.isRnrNak(Aeth.RNR_NAK));
        assertTrue(Aeth.isRnrNak(0x3F));
        assertFalse(Aeth.isRnrNak(0x1F));
        assertFalse(Aeth.isRnrNak(0x40), "reserved");
        assertFalse(Aeth.isNak(0x40), "reserved");
        assertFalse(Aeth.isAck(0x40), "reserved");
        for (int nak : new int[] {Aeth.NAK_PSN_SEQUENCE, Aeth.NAK_INVALID_REQUEST, Aeth.NAK_REMOTE_ACCESS,
                Aeth.NAK_REMOTE_OPERATIONAL}) {
            assertTrue(Aeth.isNak(nak));
            assertFalse(Aeth.isAck(nak));
            assertFalse(Aeth.isRnrNak(nak));
        }
        assertFalse(Aeth.isNak(0xE0), "reserved");
        assertFalse(Aeth.isNak(Aeth.RNR_NAK));
    }

    @Test
    void rnrTimerCodesMapToTheTable() {
        assertEquals(655_360_000L, Aeth.rnrTimerNanos(0), "code 0 is the longest, 655.36 ms");
        assertEquals(10_000L, Aeth.rnrTimerNanos(1));
        assertEquals(120_000L, Aeth.rnrTimerNanos(7), "0.12 ms");
        assertEquals(491_520_000L, Aeth.rnrTimerNanos(31));
        assertEquals(10_000L, Aeth.rnrTimerNanos(0x21), "only the low five bits are the timer");
    }
}
