package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;

import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;

/**
 * An engine group run by the application's polling threads ({@code invokeOnPoll}, Aeron's agent
 * invoker): a thread polling completions runs the agent's duty cycle, one thread at a time holds
 * it, the agent's own thread stands back while the application polls and takes over when it stops
 * or blocks. Behaviour only: the latency it saves is the latency bench's.
 */
class EngineInvokerTest {
    private static final CoreSettings NO_HEARTBEAT = Fabric.NO_HEARTBEAT;
    private static final long WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

    private static Pair open(Fabric f) throws Exception {
        return new Pair(f.connect(Fabric.options(), Fabric.options()), 256 * 1024);
    }

    /** Spins on pollCompletions only (never awaitCompletion, which hands the engine back to block). */
    private static MpCompletion spinFor(MultipathConnection c) {
        MpCompletion[] one = {new MpCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (c.pollCompletions(one) == 0) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("no completion within 30 s: " + ((MpConnection) c).describe());
            }
            Thread.onSpinWait();
        }
        return one[0];
    }

    @Test
    void pollingThreadsRunTheEngineWhileItsThreadStandsBack() throws Exception {
        EngineGroup engines = new EngineGroup(1, WINDOW_NANOS, true);
        assertTrue(engines.invokeOnPoll());
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = open(f);
            p.write(64); // set-up traffic done, the connection running
            long invokes = engines.invokes();
            long standBacks = engines.standBacks();
            for (int i = 0; i < 200; i++) {
                p.fill(p.clientBuf, 0, 256);
                p.client.postWrite(1000 + i, p.clientMr, 0, 256, p.serverMr.remote(), 0);
                MpCompletion c = spinFor(p.client);
                assertEquals(1000 + i, c.wrId());
                Pair.assertOk(c, MpOpcode.WRITE, 256);
                Pair.assertSame(p.clientBuf, 0, p.serverBuf, 0, 256);
            }
            assertTrue(engines.invokes() - invokes >= 200, "each write's completion was polled through a duty cycle"
                    + " of the polling thread: " + (engines.invokes() - invokes));
            assertTrue(engines.standBacks() > standBacks, "the agent's thread stood back while the application polled");
            assertEquals(0, engines.agentErrors());
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void aSendPostedByAPollingThreadIsTakenInThePost() throws Exception {
        EngineGroup engines = new EngineGroup(1, WINDOW_NANOS, true);
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = open(f);
            p.write(64);
            MpCompletion[] none = new MpCompletion[0];
            EngineAgent agent = engines.agent(0);
            ConnectionEngine client = ((MpConnection) p.client).engine();
            // the scenario needs the agent's thread standing back through the post: on a loaded
            // machine this thread may pause past a lease and the agent come back, so it is tried
            // until it did
            boolean seen = false;
            for (int attempt = 0; attempt < 20 && !seen; attempt++) {
                p.server.postRecv(7, p.serverMr, 0, 4096);
                // the advertisement reaches the client; past the backoff window the agent's thread,
                // idle, stands back for this polling thread
                long until = System.nanoTime() + WINDOW_NANOS + TimeUnit.MILLISECONDS.toNanos(150);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (System.nanoTime() - until < 0 || !agent.standingBack()) {
                    p.client.pollCompletions(none);
                    p.server.pollCompletions(none);
                    assertTrue(System.nanoTime() - deadline < 0, "the agent's thread never stood back");
                }
                long standBacks = agent.standBacks();
                long taken = sendsTaken(client);
                long invokes = engines.invokes();
                p.fill(p.clientBuf, 0, 64);
                p.client.postSend(8, p.clientMr, 0, 64);
                long ranAfter = engines.invokes();
                long takenAfter = sendsTaken(client);
                seen = agent.standingBack() && agent.standBacks() == standBacks;
                if (seen) {
                    // no poll in between: the post ran a duty cycle, which took the SEND (as a doorbell would)
                    assertTrue(ranAfter > invokes, "the post ran no duty cycle");
                    assertEquals(taken + 1, takenAfter, "the SEND was not taken in the post");
                }
                MpCompletion r = spinFor(p.server);
                Pair.assertOk(r, MpOpcode.RECV, 64);
                Pair.assertSame(p.clientBuf, 0, p.serverBuf, 0, 64);
                Pair.assertOk(spinFor(p.client), MpOpcode.SEND, 64);
            }
            assertTrue(seen, "the agent's thread never stood back through a post in 20 attempts");
            assertEquals(0, engines.agentErrors());
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void whenTheApplicationStopsPollingTheAgentsThreadRunsTheEngine() throws Exception {
        EngineGroup engines = new EngineGroup(1, WINDOW_NANOS, true);
        // 20 ms each way: the write completes long after the application's last poll and its lease
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0 delay=20ms")) {
            Pair p = open(f);
            p.write(64);
            MpCompletion[] none = new MpCompletion[0];
            p.client.pollCompletions(none); // a lease starts
            p.fill(p.clientBuf, 0, 512);
            p.client.postWrite(77, p.clientMr, 0, 512, p.serverMr.remote(), 0);
            long invokes = engines.invokes();
            long duties = engines.duties();
            Thread.sleep(300); // nobody polls
            assertEquals(invokes, engines.invokes(), "no application thread ran a duty cycle");
            assertTrue(engines.duties() > duties, "the agent's thread ran the engine once the lease was over");
            Pair.assertSame(p.clientBuf, 0, p.serverBuf, 0, 512);
            MpCompletion c = new MpCompletion();
            assertTrue(p.client.awaitCompletion(c, 1, TimeUnit.SECONDS), "the completion waits in the ring");
            assertEquals(77, c.wrId());
            Pair.assertOk(c, MpOpcode.WRITE, 512);
            // blocking waits hand the engine back: an exchange whose completions come after the wait's spin
            for (int i = 0; i < 5; i++) {
                p.write(1024);
                p.sendAll(100, 200);
            }
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void withoutInvokeOnPollPollingRunsNoDutyCycle() throws Exception {
        EngineGroup engines = new EngineGroup(1, WINDOW_NANOS);
        assertFalse(engines.invokeOnPoll());
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = open(f);
            for (int i = 0; i < 20; i++) {
                p.client.postWrite(i, p.clientMr, 0, 64, p.serverMr.remote(), 0);
                assertEquals(i, spinFor(p.client).wrId());
            }
            assertEquals(0, engines.invokes());
            assertEquals(0, engines.standBacks());
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void manyPollingThreadsAndTheAgentNeverRunTheEngineAtOnce() throws Exception {
        // threads that only poll (an empty array takes no completion but still runs a duty cycle) race
        // the agent's thread and the test's own polls on one agent serving both ends; overlapping duty
        // cycles would corrupt the engines' single-owner state and the checked transfers with it
        EngineGroup engines = new EngineGroup(1, WINDOW_NANOS, true);
        List<Thread> pollers = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = open(f);
            MpCompletion[] none = new MpCompletion[0];
            for (int t = 0; t < 3; t++) {
                MultipathConnection c = t % 2 == 0 ? p.client : p.server;
                Thread th = new Thread(() -> {
                    try {
                        while (!stop.get()) {
                            c.pollCompletions(none);
                            if (ThreadLocalRandom.current().nextInt(64) == 0) {
                                Thread.yield(); // let the agent's thread in now and then
                            }
                        }
                    } catch (Throwable e) {
                        failed.set(e);
                    }
                }, "invoker-test-" + t);
                pollers.add(th);
                th.start();
            }
            long invokes = engines.invokes();
            for (int round = 0; round < 30; round++) {
                p.write(8192);
                p.read(4096);
                p.sendAll(64, 5000, 70_000, 8);
            }
            assertTrue(engines.invokes() > invokes, "the polling threads ran duty cycles");
        } finally {
            stop.set(true);
            for (Thread t : pollers) {
                t.join(10_000);
            }
            assertTrue(engines.close(10_000));
        }
        if (failed.get() != null) {
            throw new AssertionError("a polling thread failed", failed.get());
        }
        assertEquals(0, engines.agentErrors());
    }

    @Test
    void aDutyCycleHasOneOwnerAndIsNotReentered() throws Exception {
        try (EngineRig rig = new EngineRig()) {
            EngineAgent agent = rig.agent;
            AtomicBoolean inside = new AtomicBoolean();
            AtomicInteger nested = new AtomicInteger(-1);
            AtomicInteger otherThread = new AtomicInteger(-1);
            AtomicInteger agentThread = new AtomicInteger(-1);
            rig.onPoll = () -> {
                inside.set(agent.inDuty());
                nested.set(agent.invoke(null));
                Thread t = new Thread(() -> {
                    otherThread.set(agent.invoke(null));
                    agentThread.set(agent.doWork());
                }, "invoker-test-other");
                t.start();
                try {
                    t.join(10_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            };
            agent.add(rig.engine);
            assertTrue(agent.invoke(null) > 0, "the new connection's intake and cycle");
            assertTrue(inside.get(), "the invoking thread is in the duty cycle");
            assertEquals(0, nested.get(), "a nested invoke does not run a second cycle");
            assertEquals(0, otherThread.get(), "another application thread does not run one meanwhile");
            assertEquals(0, agentThread.get(), "nor does the agent's own thread");
            assertEquals(1, agent.invokes(), "only the cycle that ran counts");
            assertFalse(agent.inDuty(), "out of the cycle");
        }
    }

    @Test
    void theAgentStandsBackWhileThreadsKeepInvokingItUntilHandedBack() {
        EngineAgent agent = new EngineAgent(0, 16, 0, true, t -> {
            throw new AssertionError(t);
        });
        assertFalse(agent.standBack(), "nobody invoked yet");
        // 3 ms of polling, and more while a loaded machine kept this thread from polling much
        long start = System.nanoTime();
        long end = start + TimeUnit.MILLISECONDS.toNanos(3);
        while (System.nanoTime() - end < 0 || agent.invokes() <= 3 * EngineAgent.MIN_INVOKES_PER_LEASE) {
            assertEquals(0, agent.invoke(null), "nothing to run");
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "counted: " + agent.invokes());
        }
        assertTrue(agent.invokes() > 3 * EngineAgent.MIN_INVOKES_PER_LEASE, "counted: " + agent.invokes());
        // a fresh lease: the test thread may be preempted past a lease between two lines (2-core VMs),
        // or have polled too slowly over the last term (cold code on a loaded machine): another term
        // of polling each time
        boolean stood = false;
        for (int i = 0; i < 100 && !stood; i++) {
            long term = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
            while (System.nanoTime() - term < 0) {
                agent.invoke(null);
            }
            stood = agent.standBack();
        }
        assertTrue(stood, "an application thread keeps invoking within the lease");
        assertEquals(1, agent.standBacks());
        agent.handBack();
        assertFalse(agent.standBack(), "handed back");
        agent.stop();
        long invokes = agent.invokes();
        assertEquals(0, agent.invoke(null), "a stopped agent runs nothing");
        assertEquals(invokes, agent.invokes());

        EngineAgent plain = new EngineAgent(0, 16, 0);
        assertEquals(0, plain.invoke(null));
        assertEquals(0, plain.invokes(), "not invokable");
        assertFalse(plain.standBack());
    }

    @Test
    void theAgentStandsBackUntilThePollingEndsNotJustForALeaseTerm() throws Exception {
        EngineAgent agent = new EngineAgent(0, 16, 0, true, t -> {
            throw new AssertionError(t);
        });
        AtomicBoolean done = new AtomicBoolean();
        AtomicBoolean stoodBack = new AtomicBoolean();
        Thread poller = new Thread(() -> {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!stoodBack.get() && System.nanoTime() - deadline < 0) {
                agent.invoke(null);
            }
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(40); // 40 lease terms more
            while (System.nanoTime() - end < 0) {
                agent.invoke(null);
            }
            done.set(true);
        }, "test-poller");
        poller.start();
        // this thread plays the agent's: between two stand-backs it would run a duty cycle, taking
        // the claim from the poller; a stand-back lasts while the polls go on
        int returns = 0;
        while (!done.get()) {
            if (agent.standBack()) {
                stoodBack.set(true);
                returns++;
            } else {
                Thread.onSpinWait();
            }
        }
        poller.join(10_000);
        assertTrue(returns >= 1, "the agent's thread never stood back");
        // one stand-back, and one more per lease the poller let lapse (a preempted thread): without
        // the stand-back lasting it comes back once or twice a term
        assertTrue(returns <= 10, "the agent's thread came back " + returns + " times in 40 lease terms of polling");
    }

    @Test
    void aConnectionAThreadKeepsPollingIsNotMadeQuietUntilThePollingEnds() throws Exception {
        // no backoff window: a connection without work goes quiet after a few of the agent's cycles
        EngineGroup engines = new EngineGroup(1, 0, true);
        EngineAgent agent = engines.agent(0);
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0")) {
            Pair p = open(f);
            ConnectionEngine e = ((MpConnection) p.client).engine();
            MpCompletion[] none = {new MpCompletion()};
            // windows of 5 ms of polls without traffic: made quiet, its CQ would be armed and the
            // device's cycles handed back to the soft RNIC's thread while this thread still spins.
            // A window counts only if the agent's thread stood back through all of it (on a loaded
            // machine this thread may pause past the lease; the agent then rightly takes over)
            int conclusive = 0;
            for (int attempt = 0; attempt < 200 && conclusive < 5; attempt++) {
                pollUntilStandingBack(agent, p.client, 1);
                long standBacks = agent.standBacks();
                boolean stoodBack = agent.standingBack();
                // a write taken by this thread's cycles: the connection runs again
                p.client.postWrite(attempt, p.clientMr, 0, 64, p.serverMr.remote(), 0);
                spinFor(p.client); // polled only: awaitCompletion would hand the engine back
                stoodBack &= e.running;
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
                boolean quietWhilePolled = false;
                while (System.nanoTime() - end < 0) {
                    p.client.pollCompletions(none);
                    quietWhilePolled |= !e.running;
                }
                if (stoodBack && agent.standingBack() && agent.standBacks() == standBacks) {
                    conclusive++;
                    assertFalse(quietWhilePolled, "made quiet by a polling thread's duty cycle: "
                            + ((MpConnection) p.client).describe());
                }
            }
            assertTrue(conclusive >= 5, "only " + conclusive + " windows of 5 ms with the agent's thread standing back");
            // polling ends: within a few lease terms the agent's thread takes over and quiets it
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (e.running && System.nanoTime() - deadline < 0) {
                Thread.sleep(1);
            }
            assertFalse(e.running, "still running 5 s after the polls ended: " + ((MpConnection) p.client).describe());
            assertEquals(0, engines.agentErrors());
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void anotherConnectionNobodyPollsGoesQuietWhileAThreadPollsOne() throws Exception {
        EngineGroup engines = new EngineGroup(1, 0, true);
        EngineAgent agent = engines.agent(0);
        try (Fabric f = new Fabric(NO_HEARTBEAT, engines, "rate=0")) {
            Pair polled = open(f);
            Pair idle = open(f); // both connections (all four ends) on the group's one agent
            ConnectionEngine idleClient = ((MpConnection) idle.client).engine();
            MpCompletion[] none = {new MpCompletion()};
            // only the first connection is polled: the second, without work, goes quiet in the
            // polling thread's cycles (its CQ armed, left to events) rather than costing every poll
            // of the first a duty cycle. Counted only while the agent's thread stood back throughout
            // (else it could have quieted it itself)
            boolean seen = false;
            for (int attempt = 0; attempt < 20 && !seen; attempt++) {
                pollUntilStandingBack(agent, polled.client, 5);
                long standBacks = agent.standBacks();
                idle.client.postWrite(attempt, idle.clientMr, 0, 64, idle.serverMr.remote(), 0);
                spinFor(idle.client); // the idle connection ran, and was polled a moment ago
                boolean ran = idleClient.running;
                long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
                while (idleClient.running && System.nanoTime() - until < 0) {
                    polled.client.pollCompletions(none);
                }
                seen = ran && agent.standingBack() && agent.standBacks() == standBacks;
                if (seen) {
                    assertFalse(idleClient.running, "the connection nobody polls did not go quiet in 200 ms: "
                            + ((MpConnection) idle.client).describe());
                }
            }
            assertTrue(seen, "the agent's thread never stood back through an attempt");
            idle.write(64); // and it still works: a write wakes it
            assertEquals(0, engines.agentErrors());
        } finally {
            assertTrue(engines.close(10_000));
        }
    }

    @Test
    void aThreadThatInvokesNowAndThenDoesNotMakeTheAgentStandBack() {
        EngineAgent agent = new EngineAgent(0, 16, 0, true, t -> {
            throw new AssertionError(t);
        });
        // one duty cycle every 300 us: about 3 per lease, below MIN_INVOKES_PER_LEASE
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(4);
        while (System.nanoTime() - end < 0) {
            agent.invoke(null);
            java.util.concurrent.locks.LockSupport.parkNanos(300_000);
        }
        agent.invoke(null); // the lease is fresh
        assertFalse(agent.standBack(), "too few invocations: the agent's thread keeps running the other connections");
        assertEquals(0, agent.standBacks());
    }

    /** Polls {@code c} (running its agent's cycles) until the agent's thread stands back, at most {@code seconds}. */
    private static void pollUntilStandingBack(EngineAgent agent, MultipathConnection c, long seconds) {
        MpCompletion[] none = {new MpCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!agent.standingBack() && System.nanoTime() - deadline < 0) {
            c.pollCompletions(none);
        }
    }

    /** MP_SENDs the engine took: messages it submitted that are not control messages or notices, and those riding in one. */
    private static long sendsTaken(ConnectionEngine engine) {
        var r = engine.reassembly().counters();
        return engine.decomposition().counters().messagesSubmitted() - r.controlSent() - r.noticesSent() + r.sentInline();
    }
}
