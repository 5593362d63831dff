package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.virtuoso.spi.verbs.IbvRecvWr;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWcOpcode;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/** What the binding writes into native work requests, byte for byte, and the GID/opcode mappings. */
class WorkRequestsTest {

    @Test
    void sendWrCarriesOpcodeFlagsBigEndianImmediateRemoteAddressAndSges() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequests.Send send = new WorkRequests.Send(arena, 2);
            IbvSendWr wr = new IbvSendWr(2).wrId(0x1122334455667788L).opcode(IbvWrOpcode.RDMA_WRITE_WITH_IMM)
                    .sendFlags(IbvSendFlags.SIGNALED).immData(0x12345678).remoteAddr(0xCAFE0000L).rkey(0x77)
                    .numSge(2);
            wr.sge(0).set(0x1000, 100, 5);
            wr.sge(1).set(0x2000, 200, 6);
            send.fill(wr);
            MemorySegment w = send.wr;
            assertEquals(0x1122334455667788L, w.get(JAVA_LONG, 0));
            assertEquals(0L, w.get(ADDRESS, 8).address(), "next");
            assertEquals(2, w.get(JAVA_INT, 24));
            assertEquals(1, w.get(JAVA_INT, 28), "IBV_WR_RDMA_WRITE_WITH_IMM");
            assertEquals(2, w.get(JAVA_INT, 32), "IBV_SEND_SIGNALED");
            assertArrayEquals(new byte[] {0x12, 0x34, 0x56, 0x78}, w.asSlice(36, 4).toArray(JAVA_BYTE),
                    "imm_data in network order");
            assertEquals(0xCAFE0000L, w.get(JAVA_LONG, 40));
            assertEquals(0x77, w.get(JAVA_INT, 48));
            MemorySegment sges = w.get(ADDRESS, 16).reinterpret(32);
            assertEquals(0x1000, sges.get(JAVA_LONG, 0));
            assertEquals(100, sges.get(JAVA_INT, 8));
            assertEquals(5, sges.get(JAVA_INT, 12));
            assertEquals(0x2000, sges.get(JAVA_LONG, 16));
            assertEquals(200, sges.get(JAVA_INT, 24));
            assertEquals(6, sges.get(JAVA_INT, 28));
        }
    }

    @Test
    void everySpiOpcodeMapsToItsVerbsHValue() {
        assertEquals(0, WorkRequests.opcode(IbvWrOpcode.RDMA_WRITE));
        assertEquals(1, WorkRequests.opcode(IbvWrOpcode.RDMA_WRITE_WITH_IMM));
        assertEquals(2, WorkRequests.opcode(IbvWrOpcode.SEND));
        assertEquals(3, WorkRequests.opcode(IbvWrOpcode.SEND_WITH_IMM));
        assertEquals(4, WorkRequests.opcode(IbvWrOpcode.RDMA_READ));
        assertEquals(IbvWcOpcode.RDMA_READ, NativeCq.opcode(2));
        assertEquals(IbvWcOpcode.RECV, NativeCq.opcode(128));
        assertEquals(IbvWcOpcode.RECV_RDMA_WITH_IMM, NativeCq.opcode(129));
    }

    @Test
    void moreSgesThanTheQueueWasCreatedWithAreRejectedWithEinval() {
        try (Arena arena = Arena.ofConfined()) {
            WorkRequests.Recv recv = new WorkRequests.Recv(arena, 1);
            IbvRecvWr wr = new IbvRecvWr(2).numSge(2);
            VerbsException e = assertThrows(VerbsException.class, () -> recv.fill(wr));
            assertEquals(VerbsException.EINVAL, e.errno());
        }
    }

    @Test
    void ipv4AddressesAreIpv4MappedGidsAndBack() throws Exception {
        InetAddress ip = InetAddress.getByName("10.1.2.3");
        byte[] gid = NativeQp.gidOf(ip);
        assertArrayEquals(new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 10, 1, 2, 3}, gid);
        assertEquals(ip, IbvVerbsProvider.ipv4OfGid(gid));
        byte[] linkLocal = InetAddress.getByName("fe80::1").getAddress();
        assertNull(IbvVerbsProvider.ipv4OfGid(linkLocal));
    }
}
