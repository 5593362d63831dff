package dev.virtuoso.itests.rxe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class PeerCaseTest {

    @Test
    void parsesPlanLinesAndComments() {
        List<PeerCase> plan = PeerCase.parsePlan(List.of("# header", "write guest-server 1", "",
                "send guest-client 2 mtu=1024  # two paths"));
        assertEquals(List.of(new PeerCase(PeerCase.Verb.WRITE, true, 1), new PeerCase(PeerCase.Verb.SEND, false, 2)),
                plan);
        assertEquals("send-guest-client-2path", plan.get(1).label());
    }

    @Test
    void rejectsBadLines() {
        assertThrows(IllegalArgumentException.class, () -> PeerCase.parsePlan(List.of("write server 1")));
        assertThrows(IllegalArgumentException.class, () -> PeerCase.parsePlan(List.of("atomic guest-server 1")));
        assertThrows(IllegalArgumentException.class, () -> PeerCase.parsePlan(List.of("read guest-client 3")));
        assertThrows(IllegalArgumentException.class, () -> PeerCase.parsePlan(List.of("read guest-client 1 mtu=big")));
    }
}
