package dev.virtuoso.commands.demo;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a pair's client MP_WRITing into the server, every byte checked, on its own thread
 * ({@code virtuoso-testbed-traffic}) until closed, so the shell has live traffic to watch and
 * to disturb (paths down/up, policy swaps). Owned by the shell's testbed.
 */
public final class BackgroundTraffic implements AutoCloseable {

    private static final long ROUND_BYTES = 64L << 20;

    private final EndpointPair pair;
    private final int wrBytes;
    private final int window;
    private final AtomicLong bytes = new AtomicLong();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile String failure;
    private volatile PhaseProgress round;

    /**
     * Starts the traffic.
     *
     * @param pair the connected endpoints
     * @param wrBytes bytes per MP_WRITE
     * @param window MP_WRITEs outstanding
     */
    public BackgroundTraffic(EndpointPair pair, int wrBytes, int window) {
        this.pair = pair;
        this.wrBytes = wrBytes;
        this.window = window;
        this.thread = new Thread(this::loop, "virtuoso-testbed-traffic");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void loop() {
        long seed = 1;
        while (running) {
            PhaseProgress p = new PhaseProgress("testbed", ROUND_BYTES, pair.clientConnection(),
                    pair.clientConnection()::loadBalancer);
            round = p;
            try {
                Transfer.Result r = new Transfer(Transfer.Op.WRITE, pair.client(), pair.server(), wrBytes, window,
                        ROUND_BYTES, seed, p).run(null);
                bytes.addAndGet(r.bytes());
                round = null;
                seed += ROUND_BYTES / wrBytes + 1;
            } catch (InterruptedException e) {
                return;
            } catch (IOException | RuntimeException e) {
                failure = e.getMessage();
                running = false;
            }
        }
    }

    /** @return bytes moved and verified so far */
    public long bytes() {
        PhaseProgress p = round;
        return bytes.get() + (p != null ? p.verifiedBytes() : 0);
    }

    /** @return why the traffic stopped, or {@code null} while it runs */
    public String failure() {
        return failure;
    }

    /** Stops the thread (waiting up to 5 s). Idempotent. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
