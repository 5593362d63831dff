package dev.virtuoso.commands.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

/** Phases are labelled with the policies that carried them; a policy other than the one asked for is said. */
class PolicyLabelTest {

    @Test
    void aPhaseNamesEveryPolicySeenInOrderAndTheSwapSplitsThem() {
        AtomicReference<String> inUse = new AtomicReference<>("lb-single");
        PhaseProgress p = new PhaseProgress("MP_WRITE", 1, null, inUse::get);
        p.notePolicy();
        inUse.set("builtin-roundrobin"); // lb-single's bundle stopped: the fallback carries on
        p.notePolicy();
        assertEquals("lb-single then builtin-roundrobin", p.takePolicies(), "before the swap");
        inUse.set("lb-adaptive");
        p.notePolicy();
        assertEquals("lb-adaptive", p.takePolicies(), "after the swap: only what carried it since");
        assertEquals("lb-adaptive", p.takePolicies(), "nothing sampled: the policy in use now");
    }

    @Test
    void aPolicyOtherThanTheOneAskedForIsNeverSilent() {
        assertNull(DemoRunner.choiceNote("lb-adaptive", "lb-adaptive"));
        String note = DemoRunner.choiceNote("lb-roundrobin", "lb-single");
        assertTrue(note.contains("lb-roundrobin was asked for, but the connection runs lb-single"), note);
    }
}
