package dev.virtuoso.verbs.soft.rnic;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.verbs.IbvCq;

/**
 * A completion channel between two threads: an event fired on one wakes a waiter on the other at
 * once (not at the end of its wait), and neither side keeps the channel's lock. The waits are a
 * minute long; the bound of 20 s only catches a waiter that was never woken.
 */
class CompChannelWakeupTest {
    private static final Duration NOT_STUCK = Duration.ofSeconds(20);

    @Test
    void aFireOnAnotherThreadWakesTheWaiter() throws Exception {
        SoftCompChannel channel = new SoftCompChannel(null);
        SoftCq cq = new SoftCq(null, 8, channel);
        CompletableFuture<IbvCq> waiter = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                waiter.complete(channel.getCqEvent(60, TimeUnit.SECONDS));
            } catch (Exception e) {
                waiter.completeExceptionally(e);
            }
        }, "comp-channel-waiter");
        t.start();
        assertTimeoutPreemptively(NOT_STUCK, () -> {
            while (t.getState() != Thread.State.TIMED_WAITING) {
                Thread.onSpinWait();
            }
        }, "the waiter waits on the channel");
        channel.fire(cq);
        assertSame(cq, assertTimeoutPreemptively(NOT_STUCK, () -> waiter.get()));
        t.join(TimeUnit.SECONDS.toMillis(20));
    }

    @Test
    void neitherSideKeepsTheLock() throws Exception {
        SoftCompChannel channel = new SoftCompChannel(null);
        SoftCq cq = new SoftCq(null, 8, channel);
        assertNull(channel.getCqEvent(0, TimeUnit.MILLISECONDS));
        // the engine thread fires after the application polled on its own thread
        CompletableFuture<Void> fire = CompletableFuture.runAsync(() -> channel.fire(cq));
        assertTimeoutPreemptively(NOT_STUCK, () -> fire.get());
        // and the application gets the event after the engine thread fired
        assertSame(cq, assertTimeoutPreemptively(NOT_STUCK, () -> channel.getCqEvent(0, TimeUnit.MILLISECONDS)));
        CompletableFuture<IbvCq> other = CompletableFuture.supplyAsync(() -> {
            try {
                return channel.getCqEvent(0, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertNull(assertTimeoutPreemptively(NOT_STUCK, () -> other.get()), "a second thread polls too");
    }
}
