package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/**
 * A completion channel. Its file descriptor is made non-blocking; {@link #getCqEvent} waits with
 * poll(2) in slices so an interrupt is noticed within {@link #SLICE_MILLIS}. State for the
 * waiting thread (pollfd, out-pointers, errno) is allocated once.
 *
 * <p>Two locks: the channel's monitor is held by the waiting thread for its whole wait (it owns the
 * out-pointers), {@link #cqsLock} only around the table of attached CQs and the non-blocking read
 * of one event. Creating or destroying a CQ of this channel takes only {@code cqsLock}, so it
 * never waits for a waiter that loops on the channel (one monitor for both starved
 * {@code ibv_create_cq} on the agent thread while the event thread re-entered its wait).
 */
final class NativeCompChannel implements IbvCompChannel {
    static final int SLICE_MILLIS = 100;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 04000;
    private static final short POLLIN = 1;
    private static final int EINTR = 4;

    private final NativeContext context;
    final MemorySegment channel;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment pollfd;
    private final MemorySegment cqOut;
    private final MemorySegment cqContextOut;
    private final MemorySegment errno;
    /** Guards {@link #cqs} and the read of one event with its lookup; never held while waiting. */
    final Object cqsLock = new Object();
    private volatile NativeCq[] cqs = new NativeCq[0];
    private volatile boolean closed;

    private NativeCompChannel(NativeContext context, MemorySegment channel, int fd) {
        this.context = context;
        this.channel = channel;
        pollfd = arena.allocate(Structs.POLLFD);
        pollfd.set(JAVA_INT, 0, fd);
        pollfd.set(JAVA_SHORT, 4, POLLIN);
        cqOut = arena.allocate(ADDRESS);
        cqContextOut = arena.allocate(ADDRESS);
        errno = LibIbverbs.errnoState(arena);
    }

    static NativeCompChannel create(NativeContext context) throws VerbsException {
        LibIbverbs lib = context.lib;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = LibIbverbs.errnoState(a);
            MemorySegment ch = (MemorySegment) lib.createCompChannel.invokeExact(errno, context.ctx);
            if (ch.equals(MemorySegment.NULL)) {
                throw LibIbverbs.failure("ibv_create_comp_channel", LibIbverbs.errno(errno));
            }
            int fd = ch.reinterpret(Structs.COMP_CHANNEL.byteSize()).get(JAVA_INT,
                    Structs.offset(Structs.COMP_CHANNEL, "fd"));
            int flags = (int) lib.fcntl.invokeExact(fd, F_GETFL, 0);
            int rc = flags < 0 ? -1 : (int) lib.fcntl.invokeExact(fd, F_SETFL, flags | O_NONBLOCK);
            if (rc < 0) {
                int destroyed = (int) lib.destroyCompChannel.invokeExact(ch);
                assert destroyed == 0;
                throw new VerbsException(VerbsException.EIO, "cannot make the completion channel non-blocking");
            }
            return new NativeCompChannel(context, ch, fd);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw LibIbverbs.unexpected("ibv_create_comp_channel", t);
        }
    }

    void attach(NativeCq cq) {
        synchronized (cqsLock) {
            NativeCq[] old = cqs;
            NativeCq[] n = java.util.Arrays.copyOf(old, old.length + 1);
            n[old.length] = cq;
            cqs = n;
        }
    }

    /** Caller holds {@link #cqsLock}, so no event of {@code cq} is read between this and its destruction. */
    void detach(NativeCq cq) {
        assert Thread.holdsLock(cqsLock);
        cqs = java.util.Arrays.stream(cqs).filter(c -> c != cq).toArray(NativeCq[]::new);
    }

    @Override
    public synchronized IbvCq getCqEvent(long timeout, TimeUnit unit) throws VerbsException, InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(Math.max(0, timeout));
        try {
            while (true) {
                if (closed) {
                    throw new VerbsException(VerbsException.EINVAL, "completion channel closed");
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                int rc;
                synchronized (cqsLock) {
                    // the fd is non-blocking: this read never waits
                    rc = (int) context.lib.getCqEvent.invokeExact(errno, channel, cqOut, cqContextOut);
                    if (rc == 0) {
                        MemorySegment fired = cqOut.get(ADDRESS, 0);
                        for (NativeCq cq : cqs) {
                            if (cq.cq.address() == fired.address()) {
                                cq.eventDelivered();
                                return cq;
                            }
                        }
                        // not reachable while CQs detach under cqsLock before ibv_destroy_cq
                        return null;
                    }
                }
                int e = LibIbverbs.errno(errno);
                if (e != VerbsException.EAGAIN) {
                    throw new VerbsException(e, "ibv_get_cq_event failed");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                int millis = (int) Math.min(SLICE_MILLIS, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                int n = (int) context.lib.poll.invokeExact(errno, pollfd, 1L, millis);
                if (n < 0 && LibIbverbs.errno(errno) != EINTR) {
                    throw new VerbsException(LibIbverbs.errno(errno), "poll on the completion channel failed");
                }
            }
        } catch (VerbsException | InterruptedException e) {
            throw e;
        } catch (Throwable t) {
            throw LibIbverbs.unexpected("ibv_get_cq_event", t);
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        synchronized (this) {
            try {
                LibIbverbs.destroy(context.lib.destroyCompChannel, channel, "ibv_destroy_comp_channel");
            } finally {
                arena.close();
            }
        }
    }
}
