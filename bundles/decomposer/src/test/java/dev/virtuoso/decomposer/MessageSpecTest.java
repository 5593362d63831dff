package dev.virtuoso.decomposer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

class MessageSpecTest {

    private static void assertRanges(MessageSpec s, long wrId, long local, int lkey, long len, long remote,
            int rkey) {
        assertEquals(wrId, s.wrId());
        assertEquals(local, s.localAddr());
        assertEquals(lkey, s.lkey());
        assertEquals(len, s.length());
        assertEquals(remote, s.remoteAddr());
        assertEquals(rkey, s.rkey());
    }

    @Test
    void writeReadAndLargeSendAreSplitRdmaChunks() {
        MessageSpec s = new MessageSpec();
        assertSame(s, s.write(1, 0x1000, 7, 4096, 0x2000, 9));
        assertRanges(s, 1, 0x1000, 7, 4096, 0x2000, 9);
        assertEquals(MpOpcode.WRITE, s.opcode());
        assertEquals(IbvWrOpcode.RDMA_WRITE, s.chunkOpcode());
        assertTrue(s.split());

        assertSame(s, s.read(2, 0x3000, 5, 100, 0x4000, 6));
        assertRanges(s, 2, 0x3000, 5, 100, 0x4000, 6);
        assertEquals(MpOpcode.READ, s.opcode());
        assertEquals(IbvWrOpcode.RDMA_READ, s.chunkOpcode());
        assertTrue(s.split());

        assertSame(s, s.sendLarge(3, 0x5000, 11, 1 << 20, 0x6000, 12));
        assertRanges(s, 3, 0x5000, 11, 1 << 20, 0x6000, 12);
        assertEquals(MpOpcode.SEND, s.opcode());
        assertEquals(IbvWrOpcode.RDMA_WRITE, s.chunkOpcode());
        assertTrue(s.split());
    }

    @Test
    void smallSendIsOneSendWithImmediateNeverSplit() {
        MessageSpec s = new MessageSpec().sendSmall(4, 0x7000, 13, 64, 0xABCD);
        assertRanges(s, 4, 0x7000, 13, 64, 0, 0);
        assertEquals(MpOpcode.SEND, s.opcode());
        assertEquals(IbvWrOpcode.SEND_WITH_IMM, s.chunkOpcode());
        assertEquals(0xABCD, s.immData());
        assertFalse(s.split());
    }

    @Test
    void tagIsEchoedAndResetByTheNextRequest() {
        MessageSpec s = new MessageSpec();
        assertSame(s, s.write(1, 0, 1, 1, 0, 1).tag(42));
        assertEquals(42, s.tag());
        s.write(2, 0, 1, 1, 0, 1);
        assertEquals(0, s.tag());
    }

    @Test
    void negativeLengthIsRejected() {
        MessageSpec s = new MessageSpec();
        assertThrows(IllegalArgumentException.class, () -> s.write(1, 0, 1, -1, 0, 1));
        assertEquals(0, new MessageSpec().write(1, 0, 1, 0, 0, 1).length());
    }
}
