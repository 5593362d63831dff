package dev.virtuoso.itests.robustness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.decomposer.internal.DecomposerComponent;
import dev.virtuoso.qpmanager.internal.engine.Connector;
import dev.virtuoso.qpmanager.internal.engine.CoreSettings;
import dev.virtuoso.qpmanager.internal.engine.PolicyRegistry;
import dev.virtuoso.reassembler.internal.ReassemblerComponent;
import dev.virtuoso.verbs.soft.SoftVerbsProvider;

/**
 * A connector over one soft verbs provider with devices {@code a} (client) and {@code b} (server),
 * plus helpers to connect and to move data with an MP_WRITE whose every byte is checked.
 */
final class MultipathPair implements AutoCloseable {
    final SoftVerbsProvider provider;
    final Connector connector;
    final MultipathListener listener;

    MultipathPair(SoftVerbsProvider provider) throws Exception {
        this(provider, Duration.ofSeconds(10));
    }

    /** @param serverHandshakeTimeout bounds every handshake step on the listening side */
    MultipathPair(SoftVerbsProvider provider, Duration serverHandshakeTimeout) throws Exception {
        this.provider = provider;
        this.connector = new Connector(n -> provider, new DecomposerComponent(), new ReassemblerComponent(),
                new PolicyRegistry(), CoreSettings.DEFAULTS);
        this.listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                options().handshakeTimeout(serverHandshakeTimeout).device("b").build());
    }

    static ConnectOptions.Builder options() {
        return ConnectOptions.builder().handshakeTimeout(Duration.ofSeconds(10));
    }

    static InetAddress ip(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** @return {client, server}, connected */
    MultipathConnection[] connect() throws Exception {
        MultipathConnection c = connector.connect(listener.localAddress(), options().device("a").build());
        MultipathConnection s = listener.accept(20, TimeUnit.SECONDS);
        if (s == null) {
            c.close();
            throw new AssertionError("server side did not accept");
        }
        return new MultipathConnection[] {c, s};
    }

    /** Fills a buffer with a seeded pseudo-random pattern. */
    static void fill(ByteBuffer b, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int i = 0;
        for (; i + 8 <= b.capacity(); i += 8) {
            b.putLong(i, r.nextLong());
        }
        for (; i < b.capacity(); i++) {
            b.put(i, (byte) r.nextInt());
        }
    }

    /** One MP_WRITE of the whole of {@code src} into {@code dst}; asserts success and every byte. */
    static void writeAndVerify(MultipathConnection client, MultipathConnection server, ByteBuffer src,
            ByteBuffer dst, long timeoutSeconds) throws Exception {
        try (MemoryRegion s = client.register(src, EnumSet.of(Access.LOCAL_WRITE));
                MemoryRegion d = server.register(dst, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
            client.postWrite(7, s, 0, src.capacity(), d.remote(), 0);
            MpCompletion done = new MpCompletion();
            if (!client.awaitCompletion(done, timeoutSeconds, TimeUnit.SECONDS)) {
                throw new AssertionError("MP_WRITE did not complete in " + timeoutSeconds + " s: " + client);
            }
            assertEquals(MpStatus.SUCCESS, done.status(), done.toString());
            assertEquals(MpOpcode.WRITE, done.opcode());
            assertEquals(src.capacity(), done.byteLength());
            int m = src.duplicate().clear().mismatch(dst.duplicate().clear());
            assertEquals(-1, m, "first differing byte at " + m);
        }
    }

    static List<InetAddress> addresses(String prefix, int first, int count) {
        List<InetAddress> l = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            l.add(ip(prefix + (first + i)));
        }
        return l;
    }

    @Override
    public void close() {
        listener.close();
        connector.close();
        provider.close();
    }
}
