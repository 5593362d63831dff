package dev.virtuoso.reassembler.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;

import dev.virtuoso.api.MpStatus;
import dev.virtuoso.reassembler.Reassembly;
import dev.virtuoso.reassembler.SendTarget;

import org.junit.jupiter.api.Test;

/** The receive tables start small and grow while receives and advertisements are live. */
class GrowingTablesTest {
    private final SendTarget target = new SendTarget();

    @Test
    void receivesPostedBeyondTheFirstTableAreMatchedAndDeliveredInOrder() throws Exception {
        ReassemblyHarness h = new ReassemblyHarness(128, 8, 256, 256);
        ByteBuffer region = ByteBuffer.allocateDirect(128 * 16);
        long wrId = 0;
        int sent = 0;
        // sequences do not start at 0 when the tables grow: the live ones wrap the first ring
        for (int round = 0; round < 2; round++) {
            int n = round == 0 ? 10 : 128;
            for (int k = 0; k < n; k++) {
                assertTrue(h.b.r.postReceive(wrId++, region, (int) (wrId % 128) * 16, 16, 0, 0, false),
                        "receive " + wrId);
            }
            assertEquals(n, h.b.r.receivesInProgress());
            h.exchange();
            for (int k = 0; k < n; k++) {
                int result;
                while ((result = h.a.r.reserveSend(4, target)) == Reassembly.NOT_READY) {
                    h.exchange(); // credits come back once the receiver took the slots
                }
                assertEquals(Reassembly.SMALL, result, "message " + sent);
                byte[] payload = ByteBuffer.allocate(4).putInt(sent).array();
                h.b.arriveSmall(target.immData(), payload);
                h.a.r.sendFinished(target.sequence(), false, MpStatus.SUCCESS, 4, 1);
                sent++;
                h.exchange();
            }
            h.b.deliver();
        }
        assertEquals(138, h.b.delivered.size());
        for (int k = 0; k < 138; k++) {
            assertEquals(k, h.b.delivered.get(k).wrId(), "in order");
            assertEquals(MpStatus.SUCCESS, h.b.delivered.get(k).status());
            int at = (k + 1) % 128 * 16;
            if (k >= 10) {
                assertEquals(k, region.getInt(at), "message " + k + " in its receive's buffer");
            }
        }
        h.assertCreditsConserved();
    }

    @Test
    void theSenderKeepsEveryAdvertisementWhileItsTableGrows() {
        RemoteReceives r = new RemoteReceives(100);
        r.nextSend = 5;
        r.nextAdvert = 5;
        for (int k = 0; k < 40; k++) { // advertised and used one by one: the table never fills
            r.ensureRoom();
            r.nextAdvert++;
            r.nextSend++;
        }
        assertEquals(RemoteReceives.INITIAL_ENTRIES, r.addr.length, "no growth while there is room");
        r.nextSend = 5;
        r.nextAdvert = 5;
        for (int k = 0; k < 100; k++) {
            r.ensureRoom();
            int i = r.index(r.nextAdvert);
            r.addr[i] = 1000 + r.nextAdvert;
            r.capacity[i] = (int) r.nextAdvert;
            r.nextAdvert++;
        }
        assertTrue(r.full());
        assertEquals(100, r.addr.length, "grown to the peer's limit, not beyond");
        for (long q = 5; q < 105; q++) {
            assertEquals(1000 + q, r.addr[r.index(q)], "advertisement " + q);
            assertEquals(q, r.capacity[r.index(q)]);
        }
    }
}
