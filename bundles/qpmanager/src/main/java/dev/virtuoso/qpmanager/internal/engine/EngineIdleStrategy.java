package dev.virtuoso.qpmanager.internal.engine;

import org.agrona.concurrent.IdleStrategy;

/**
 * How an engine agent idles: while a connection is running (had work a few cycles ago, or data-path
 * work within the agent's backoff window) it spins, then yields, as Agrona's backoff strategy does,
 * so a busy data path or a request-response exchange is not delayed by a park and a wake-up; once
 * every connection is quiet it parks until a wake-up or the nearest timer
 * ({@link EngineAgent#sleep}), so quiet connections cost no CPU. While application threads run
 * the agent's duty cycles ({@code invokeOnPoll}) it stands back ({@link EngineAgent#standBack}).
 */
final class EngineIdleStrategy implements IdleStrategy {
    private static final int SPINS = 16;

    private final EngineAgent agent;
    private int idleCycles;

    EngineIdleStrategy(EngineAgent agent) {
        this.agent = agent;
    }

    @Override
    public void idle(int workCount) {
        if (workCount > 0) {
            idleCycles = 0;
            return;
        }
        idle();
    }

    @Override
    public void idle() {
        if (agent.standBack()) {
            idleCycles = 0;
            return;
        }
        if (agent.busy()) {
            if (idleCycles++ < SPINS) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
            return;
        }
        idleCycles = 0;
        agent.sleep();
    }

    @Override
    public void reset() {
        idleCycles = 0;
    }

    @Override
    public String alias() {
        return "virtuoso-engine";
    }
}
