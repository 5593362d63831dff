package dev.virtuoso.qpmanager.internal.engine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameHeader;
import dev.virtuoso.qpmanager.internal.bootstrap.ProtocolException;
import dev.virtuoso.qpmanager.internal.bootstrap.Protocol;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * Accepts bootstrap connections within {@link BootstrapLimits}. Its thread
 * ({@code virtuoso-listen-<port>}) accepts and reads each connection's first frame on one
 * selector, so an idle connection costs a socket and a small buffer, never a thread; connections
 * over the pending or per-source cap are closed at once, and those whose first frame has not
 * arrived within one handshake step (or by the overall deadline, if earlier) are closed. A connection with its first frame goes to a
 * bounded pool ({@code virtuoso-handshake-<port>-<n>}) that runs the rest of the handshake under
 * the same deadline. Established connections wait for {@link #accept} in a queue of bounded size;
 * a handshake that would overflow it is refused before any QP is created. Failures are counted.
 */
final class Listener implements MultipathListener {
    private static final System.Logger LOG = System.getLogger(Listener.class.getName());
    /** First-frame bodies up to this size are read by the listener thread; larger go to a worker. */
    private static final int FIRST_FRAME_BODY = 128;
    /** Longest wait of the listener thread, so deadlines are checked this often. */
    private static final long SWEEP_MILLIS = 100;
    private static final long CLOSE_WAIT_MILLIS = 5000;
    private static final long IDLE_SECONDS = 2;

    private final Connector owner;
    private final ServerSocketChannel server;
    private final ConnectOptions options;
    private final VerbsProvider provider;
    private final List<InetAddress> locals;
    private final BootstrapLimits limits;
    private final InetSocketAddress address;
    private final AcceptQueue accepted = new AcceptQueue();
    private final Semaphore queueSlots;
    private final SourceCounts sources;
    /** Handshake threads: created on demand, reused while busy, gone after {@value #IDLE_SECONDS} s idle. */
    private final ThreadPoolExecutor workers;
    /** Connections with their first frame, waiting for a handshake thread. */
    private final ArrayBlockingQueue<Pending> ready;
    /** Threads draining {@link #ready}: at most {@code maxHandshakes}. */
    private final AtomicInteger draining = new AtomicInteger();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong droppedBusy = new AtomicLong();
    private final AtomicLong droppedPerSource = new AtomicLong();
    private final AtomicLong expired = new AtomicLong();
    private int pendingCount;
    private volatile String lastFailure;
    private volatile boolean closed;
    /** Orders {@link #start()} and {@link #close()}: a listener closed first never starts its thread. */
    private final Object lifecycle = new Object();
    /** Guarded by {@link #lifecycle}. */
    private Thread thread;
    private Selector selector;
    /** Listener thread, after a connection went to the handshake pool (tests stall the thread here). */
    volatile Runnable afterHandOff = () -> { };

    /** An accepted connection whose first frame is being read (listener thread only). */
    private final class Pending {
        final SocketChannel channel;
        final InetAddress source;
        final long deadlineNanos;
        /** The first frame is one step: due by one step timeout, or the overall deadline if earlier. */
        final long firstFrameDeadlineNanos;
        final ByteBuffer first = ByteBuffer.allocate(Protocol.HEADER_BYTES + FIRST_FRAME_BODY)
                .limit(Protocol.HEADER_BYTES);

        Pending(SocketChannel channel, InetAddress source, long deadlineNanos) {
            this.channel = channel;
            this.source = source;
            this.deadlineNanos = deadlineNanos;
            long step = System.nanoTime() + options.handshakeTimeout().toNanos();
            this.firstFrameDeadlineNanos = step - deadlineNanos < 0 ? step : deadlineNanos;
        }

        void drop() {
            sources.release(source);
            closeQuietly(channel);
        }
    }

    Listener(Connector owner, ServerSocketChannel server, ConnectOptions options, VerbsProvider provider,
            List<InetAddress> locals, BootstrapLimits limits) throws VirtuosoException {
        this.owner = owner;
        this.server = server;
        this.options = options;
        this.provider = provider;
        this.locals = locals;
        this.limits = limits;
        this.queueSlots = new Semaphore(limits.acceptQueue());
        this.sources = new SourceCounts(limits.maxPerSource());
        try {
            this.address = (InetSocketAddress) server.getLocalAddress();
            server.configureBlocking(false);
            selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            closeQuietly();
            throw new VirtuosoException(Reason.IO, "cannot listen: " + e.getMessage(), e);
        }
        ready = new ArrayBlockingQueue<>(limits.maxPending());
        AtomicInteger n = new AtomicInteger();
        // the number of threads is bounded by draining (a finishing thread may briefly overlap a new one)
        workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, IDLE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
                r -> {
                    Thread t = new Thread(r, "virtuoso-handshake-" + address.getPort() + "-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
    }

    /** @return false if the listener was closed first (then no thread starts) */
    boolean start() {
        synchronized (lifecycle) {
            if (closed) {
                return false;
            }
            thread = new Thread(this::run, "virtuoso-listen-" + address.getPort());
            thread.setDaemon(true);
            thread.start();
            return true;
        }
    }

    private void run() {
        while (!closed) {
            try {
                selector.select(SWEEP_MILLIS);
                for (SelectionKey k : selector.selectedKeys()) {
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.channel() == server) {
                        acceptAll();
                    } else if (k.isReadable()) {
                        readFirst(k);
                    }
                }
                selector.selectedKeys().clear();
                expire();
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    LOG.log(System.Logger.Level.ERROR, "listener " + address + ": accept failed", e);
                    fail("accept failed: " + e.getMessage());
                    pause(); // e.g. out of file descriptors: the accept stays ready, do not spin on it
                }
            }
        }
        // a cancelled key stays in keys() until the next select: its connection was dropped or went
        // to a handshake thread (and may be established by now), so only valid keys are still ours
        for (SelectionKey k : selector.keys()) {
            if (k.isValid() && k.attachment() instanceof Pending p) {
                p.drop();
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(SWEEP_MILLIS / 10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void acceptAll() throws IOException {
        SocketChannel ch;
        while (!closed && (ch = server.accept()) != null) {
            InetAddress source;
            try {
                source = ((InetSocketAddress) ch.getRemoteAddress()).getAddress();
            } catch (IOException | RuntimeException gone) {
                closeQuietly(ch); // reset before it was accepted
                continue;
            }
            if (pendingCount >= limits.maxPending()) {
                droppedBusy.incrementAndGet();
                closeQuietly(ch);
            } else if (!sources.reserve(source)) {
                droppedPerSource.incrementAndGet();
                closeQuietly(ch);
            } else {
                Pending p = new Pending(ch, source,
                        System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(limits.deadlineMillis()));
                try {
                    ch.configureBlocking(false);
                    ch.register(selector, SelectionKey.OP_READ, p);
                    pendingCount++;
                } catch (IOException e) {
                    p.drop();
                }
            }
        }
    }

    /** Reads the first frame; hands the connection to a worker once it is there (or is bad or big). */
    private void readFirst(SelectionKey k) {
        Pending p = (Pending) k.attachment();
        ByteBuffer b = p.first;
        int n;
        try {
            n = p.channel.read(b);
        } catch (IOException e) {
            n = -1;
        }
        if (n < 0) {
            k.cancel();
            pendingCount--;
            p.drop();
            fail("peer " + p.source.getHostAddress() + " closed before its first frame");
            return;
        }
        if (b.position() < Protocol.HEADER_BYTES) {
            return;
        }
        if (b.limit() == Protocol.HEADER_BYTES) {
            try {
                int body = FrameHeader.check(b, 0, Protocol.MAX_HANDSHAKE_BODY);
                if (body > 0 && body <= FIRST_FRAME_BODY) {
                    b.limit(Protocol.HEADER_BYTES + body);
                    return;
                }
            } catch (ProtocolException e) {
                // the worker reads the same header and answers the peer with an ERROR
            }
        } else if (b.hasRemaining()) {
            return;
        }
        k.cancel();
        pendingCount--;
        b.flip();
        if (!ready.offer(p)) {
            droppedBusy.incrementAndGet();
            p.drop();
            return;
        }
        if (claimDrainer()) {
            try {
                workers.execute(this::drain);
            } catch (RejectedExecutionException e) {
                draining.decrementAndGet(); // shut down: close() drops what is queued
            }
        }
        afterHandOff.run();
    }

    /** @return true if one more thread may drain the ready queue (and is counted) */
    private boolean claimDrainer() {
        while (true) {
            int d = draining.get();
            if (d >= limits.maxHandshakes()) {
                return false;
            }
            if (draining.compareAndSet(d, d + 1)) {
                return true;
            }
        }
    }

    /** Handshake thread: runs queued handshakes until the queue is empty. */
    private void drain() {
        while (true) {
            Pending p = closed ? null : ready.poll();
            if (p != null) {
                handshake(p);
                continue;
            }
            draining.decrementAndGet();
            // a connection queued while this thread was giving up would otherwise wait for the next one
            if (closed || ready.isEmpty() || !claimDrainer()) {
                return;
            }
        }
    }

    private void expire() {
        long now = System.nanoTime();
        for (SelectionKey k : selector.keys()) {
            if (k.isValid() && k.attachment() instanceof Pending p && now - p.firstFrameDeadlineNanos >= 0) {
                k.cancel();
                pendingCount--;
                expired.incrementAndGet();
                p.drop();
                fail("peer " + p.source.getHostAddress() + " sent no complete first frame in time (handshake "
                        + "timeout " + options.handshakeTimeout().toMillis() + " ms, deadline " + limits.deadlineMillis()
                        + " ms)");
            }
        }
    }

    /** Worker: the rest of the handshake, then into the accept queue. */
    private void handshake(Pending p) {
        boolean[] admitted = new boolean[1];
        Supplier<String> admission = () -> {
            if (closed) {
                return "the listener is closing";
            }
            if (!queueSlots.tryAcquire()) {
                return "accept queue full (" + limits.acceptQueue() + " established connections wait; acceptQueue)";
            }
            admitted[0] = true;
            return null;
        };
        try {
            MpConnection c = owner.accept(p.channel, p.first, options, provider, locals, p.deadlineNanos,
                    limits.peer(), admission);
            if (!accepted.add(c)) {
                queueSlots.release();
                c.close(); // the listener closed during the handshake
            }
        } catch (VirtuosoException | RuntimeException e) {
            if (admitted[0]) {
                queueSlots.release();
            }
            fail(e.getMessage());
        } finally {
            sources.release(p.source);
        }
    }

    private void fail(String why) {
        failures.incrementAndGet();
        lastFailure = why;
    }

    /** @return handshakes that failed (bad, unauthenticated, over a limit or timed-out peers) */
    long failures() {
        return failures.get();
    }

    /** @return connections closed at once because the pending cap or the handshake pool was full */
    long droppedBusy() {
        return droppedBusy.get();
    }

    /** @return connections closed at once because their source was at its cap */
    long droppedPerSource() {
        return droppedPerSource.get();
    }

    /** @return connections closed because their first frame had not arrived by the deadline */
    long expired() {
        return expired.get();
    }

    /** @return the reason of the latest failed handshake, or {@code null} */
    String lastFailure() {
        return lastFailure;
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public MultipathConnection accept(long timeout, TimeUnit unit) throws VirtuosoException, InterruptedException {
        MpConnection c = accepted.take(timeout, unit);
        if (c != null) {
            queueSlots.release();
        }
        return c;
    }

    @Override
    public void close() {
        Thread thread;
        synchronized (lifecycle) {
            if (closed) {
                return;
            }
            closed = true;
            thread = this.thread;
        }
        List<MpConnection> untaken = accepted.close(); // wakes waiting accepts now, with CLOSED
        selector.wakeup();
        if (thread != null && thread != Thread.currentThread()) {
            try {
                thread.join(CLOSE_WAIT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        workers.shutdownNow();
        try {
            workers.awaitTermination(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Pending p;
        while ((p = ready.poll()) != null) {
            p.drop();
        }
        closeQuietly();
        for (MpConnection c : untaken) {
            c.close();
        }
        owner.forget(this);
    }

    private static void closeQuietly(SocketChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // dropping it anyway
        }
    }

    private void closeQuietly() {
        try {
            if (selector != null) {
                selector.close();
            }
        } catch (IOException e) {
            // closing anyway
        }
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
