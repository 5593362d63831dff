package dev.virtuoso.qpmanager.internal.engine;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * Accepts bootstrap connections and runs their handshakes on its own thread
 * ({@code virtuoso-listen-<port>}), one after the other, each step bounded by the handshake
 * timeout; failed handshakes are counted and dropped.
 */
final class Listener implements MultipathListener {
    private final Connector owner;
    private final ServerSocketChannel server;
    private final ConnectOptions options;
    private final VerbsProvider provider;
    private final List<InetAddress> locals;
    private final InetSocketAddress address;
    private final LinkedBlockingQueue<MpConnection> accepted = new LinkedBlockingQueue<>();
    private final AtomicLong failures = new AtomicLong();
    private volatile String lastFailure;
    private volatile boolean closed;
    private Thread thread;
    private Selector selector;

    Listener(Connector owner, ServerSocketChannel server, ConnectOptions options, VerbsProvider provider,
            List<InetAddress> locals) throws VirtuosoException {
        this.owner = owner;
        this.server = server;
        this.options = options;
        this.provider = provider;
        this.locals = locals;
        try {
            this.address = (InetSocketAddress) server.getLocalAddress();
            server.configureBlocking(false);
            selector = Selector.open();
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            closeQuietly();
            throw new VirtuosoException(Reason.IO, "cannot listen: " + e.getMessage(), e);
        }
    }

    void start() {
        thread = new Thread(this::run, "virtuoso-listen-" + address.getPort());
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!closed) {
            try {
                selector.select(200);
                selector.selectedKeys().clear();
                SocketChannel ch;
                while (!closed && (ch = server.accept()) != null) {
                    try {
                        accepted.add(owner.accept(ch, options, provider, locals));
                    } catch (VirtuosoException | RuntimeException e) {
                        failures.incrementAndGet();
                        lastFailure = e.getMessage();
                    }
                }
            } catch (IOException | RuntimeException e) {
                if (!closed) {
                    failures.incrementAndGet();
                    lastFailure = "accept failed: " + e.getMessage();
                }
            }
        }
    }

    /** @return handshakes that failed (bad, unauthenticated or timed-out peers) */
    long failures() {
        return failures.get();
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
        MpConnection c = accepted.poll();
        if (c != null) {
            return c;
        }
        if (closed) {
            throw new VirtuosoException(Reason.CLOSED, "listener is closed");
        }
        return accepted.poll(timeout, unit);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        selector.wakeup();
        if (thread != null && thread != Thread.currentThread()) {
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeQuietly();
        MpConnection c;
        while ((c = accepted.poll()) != null) {
            c.close();
        }
        owner.forget(this);
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
