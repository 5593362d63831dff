package dev.virtuoso.qpmanager.internal.bootstrap;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.qpmanager.internal.bootstrap.FrameChannel.Frame;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Accept;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Challenge;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Connect;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.Hello;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathAnswer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.PathOffer;
import dev.virtuoso.qpmanager.internal.bootstrap.HandshakeMessages.ReceiveParams;

/**
 * The single bootstrap exchange of a multipath connection ({@code MP_rdma_connect}): HELLO,
 * CHALLENGE (with the server's vNICs), CONNECT (every path's QP), ACCEPT (the server's QPs),
 * READY. Each step has its own deadline and the whole exchange an overall one; the sizes the peer
 * announces are checked against local caps ({@link PeerLimits}) before anything is sized by them.
 * A peer that sends anything malformed, oversized, over a cap, of another version or of the wrong
 * type is answered with ERROR and dropped. With a shared secret,
 * each side proves it with an HMAC over both nonces and checks the other's proof in constant time.
 */
public final class Handshake {
    /** Error codes carried in ERROR frames. */
    static final int E_VERSION = 1;
    static final int E_MALFORMED = 2;
    static final int E_AUTH = 3;
    static final int E_NO_PATH = 4;
    static final int E_RESOURCES = 5;
    /** A size the peer chose exceeds a local cap ({@link PeerLimits}). */
    static final int E_LIMIT = 6;

    /**
     * Outcome of a successful handshake.
     *
     * @param channel the connection, now the control channel
     * @param peer the peer's parameters
     * @param pathCount paths established
     */
    public record Result(FrameChannel channel, ReceiveParams peer, int pathCount) {
    }

    /** Overall deadline of the overloads without one, in steps: five frames are exchanged. */
    private static final int OVERALL_STEPS = 5;

    private Handshake() {
    }

    /**
     * Runs the client side.
     *
     * @param remote the listener's bootstrap address
     * @param secret shared secret or {@code null}
     * @param remoteAddresses remote vNICs to pair with (empty: those the server advertises)
     * @param step limit for each step
     * @param setup the client's QP resources
     * @return the established connection
     * @throws VirtuosoException HANDSHAKE, TIMEOUT, NO_PATH, IO, or what the setup throws
     */
    public static Result client(InetSocketAddress remote, byte[] secret, List<InetAddress> remoteAddresses,
            Duration step, PathSetup setup) throws VirtuosoException {
        return client(remote, secret, remoteAddresses, step, System.nanoTime() + OVERALL_STEPS * step.toNanos(),
                PeerLimits.DEFAULTS, setup);
    }

    /**
     * Runs the client side with an overall deadline and caps on the server's parameters.
     *
     * @param deadlineNanos {@link System#nanoTime()} by which the whole exchange is over
     * @param limits caps on the sizes the server announces, checked before they are used
     * @see #client(InetSocketAddress, byte[], List, Duration, PathSetup)
     */
    public static Result client(InetSocketAddress remote, byte[] secret, List<InetAddress> remoteAddresses,
            Duration step, long deadlineNanos, PeerLimits limits, PathSetup setup) throws VirtuosoException {
        long stepNanos = step.toNanos();
        FrameChannel ch;
        try {
            ch = FrameChannel.connect(remote, stepDeadline(stepNanos, deadlineNanos));
        } catch (SocketTimeoutException e) {
            throw new VirtuosoException(Reason.TIMEOUT, "connecting to " + remote + " timed out", e);
        } catch (IOException e) {
            throw new VirtuosoException(Reason.IO, "cannot connect to " + remote + ": " + e.getMessage(), e);
        }
        try {
            byte[] clientNonce = Authenticator.nonce();
            Hello hello = new Hello(clientNonce, secret != null);
            ch.send(Protocol.HELLO, hello::encode, stepDeadline(stepNanos, deadlineNanos));
            Challenge challenge = Challenge.decode(expect(ch, Protocol.CHALLENGE, stepNanos, deadlineNanos));
            byte[] proof = null;
            if (challenge.authRequired() && secret == null) {
                throw refuse(ch, E_AUTH, "peer requires a shared secret and none is configured");
            }
            if (!challenge.authRequired() && secret != null) {
                throw refuse(ch, E_AUTH, "peer does not authenticate although a shared secret is configured");
            }
            if (secret != null) {
                if (!Authenticator.matches(Authenticator.serverProof(secret, clientNonce, challenge.nonce()),
                        challenge.mac())) {
                    throw refuse(ch, E_AUTH, "peer failed authentication");
                }
                proof = Authenticator.clientProof(secret, clientNonce, challenge.nonce());
            }
            List<InetAddress> local = setup.localAddresses();
            List<InetAddress> remotes = remoteAddresses.isEmpty() ? challenge.vnics() : remoteAddresses;
            int n = Math.min(Math.min(local.size(), remotes.size()), Protocol.MAX_PATHS);
            if (n == 0) {
                throw refuse(ch, E_NO_PATH, "no path: " + local.size() + " local and " + remotes.size()
                        + " remote vNIC addresses", Reason.NO_PATH);
            }
            List<PathOffer> offers = setup.offerPaths(local.subList(0, n), remotes.subList(0, n));
            Connect connect = new Connect(proof, setup.params(), offers);
            ch.send(Protocol.CONNECT, connect::encode, stepDeadline(stepNanos, deadlineNanos));
            Accept accept = Accept.decode(expect(ch, Protocol.ACCEPT, stepNanos, deadlineNanos));
            if (accept.paths().size() != n) {
                throw refuse(ch, E_MALFORMED, "peer answered " + accept.paths().size() + " paths of " + n);
            }
            String over = limits.violation(accept.params());
            if (over != null) {
                throw refuse(ch, E_LIMIT, over);
            }
            setup.connectPaths(accept.params(), accept.paths());
            ch.send(Protocol.READY, b -> { }, stepDeadline(stepNanos, deadlineNanos));
            return new Result(ch, accept.params(), n);
        } catch (VirtuosoException e) {
            ch.close();
            throw e;
        } catch (ProtocolException e) {
            refuseQuietly(ch, e);
            ch.close();
            throw new VirtuosoException(Reason.HANDSHAKE, "bad handshake from " + remote + ": " + e.getMessage(), e);
        } catch (IOException e) {
            ch.close();
            throw ioFailure(remote, e);
        } catch (RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Runs the server side on an accepted connection.
     *
     * @param ch the accepted connection
     * @param secret shared secret or {@code null}
     * @param step limit for each step
     * @param setup the server's QP resources
     * @return the established connection (the caller owns {@code ch} either way)
     * @throws VirtuosoException HANDSHAKE, TIMEOUT, NO_PATH, IO, or what the setup throws
     */
    public static Result server(FrameChannel ch, byte[] secret, Duration step, PathSetup setup)
            throws VirtuosoException {
        return server(ch, secret, step, System.nanoTime() + OVERALL_STEPS * step.toNanos(), PeerLimits.DEFAULTS,
                () -> null, setup);
    }

    /**
     * Runs the server side with an overall deadline, caps on the client's parameters and an
     * admission check.
     *
     * @param deadlineNanos {@link System#nanoTime()} by which the whole exchange is over
     * @param limits caps on the sizes the client announces, checked before any QP is created
     * @param admission asked once the client is authenticated and within the caps, before any QP
     *     is created: {@code null} admits, a text refuses with that reason (e.g. a full accept queue)
     * @see #server(FrameChannel, byte[], Duration, PathSetup)
     */
    public static Result server(FrameChannel ch, byte[] secret, Duration step, long deadlineNanos, PeerLimits limits,
            Supplier<String> admission, PathSetup setup) throws VirtuosoException {
        long stepNanos = step.toNanos();
        InetSocketAddress peer = ch.remoteAddress();
        try {
            Hello hello = Hello.decode(expect(ch, Protocol.HELLO, stepNanos, deadlineNanos));
            byte[] serverNonce = Authenticator.nonce();
            byte[] proof = secret == null ? null : Authenticator.serverProof(secret, hello.nonce(), serverNonce);
            List<InetAddress> vnics = setup.localAddresses();
            Challenge challenge = new Challenge(serverNonce, proof,
                    vnics.size() > Protocol.MAX_PATHS ? vnics.subList(0, Protocol.MAX_PATHS) : vnics);
            ch.send(Protocol.CHALLENGE, challenge::encode, stepDeadline(stepNanos, deadlineNanos));
            Connect connect = Connect.decode(expect(ch, Protocol.CONNECT, stepNanos, deadlineNanos));
            if (secret != null && !Authenticator.matches(
                    Authenticator.clientProof(secret, hello.nonce(), serverNonce), connect.mac())) {
                throw refuse(ch, E_AUTH, "peer failed authentication");
            }
            if (secret == null && connect.mac() != null) {
                throw refuse(ch, E_AUTH, "unexpected authentication proof");
            }
            String over = limits.violation(connect.params());
            if (over != null) {
                throw refuse(ch, E_LIMIT, over);
            }
            String refused = admission.get();
            if (refused != null) {
                throw refuse(ch, E_RESOURCES, refused);
            }
            List<PathAnswer> answers;
            try {
                answers = setup.acceptPaths(connect.params(), connect.paths());
            } catch (VirtuosoException e) {
                refuseQuietly(ch, e.reason() == Reason.NO_PATH ? E_NO_PATH : E_RESOURCES, e.getMessage());
                throw e;
            }
            Accept accept = new Accept(setup.params(), new ArrayList<>(answers));
            ch.send(Protocol.ACCEPT, accept::encode, stepDeadline(stepNanos, deadlineNanos));
            Frame ready = expectFrame(ch, Protocol.READY, stepNanos, deadlineNanos);
            Fields.end(ready.body(), "READY");
            return new Result(ch, connect.params(), answers.size());
        } catch (VirtuosoException e) {
            throw e;
        } catch (ProtocolException e) {
            refuseQuietly(ch, e);
            throw new VirtuosoException(Reason.HANDSHAKE, "bad handshake from " + peer + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw ioFailure(peer, e);
        }
    }

    /** The earlier of one step from now and the overall deadline. */
    static long stepDeadline(long stepNanos, long deadlineNanos) {
        long d = System.nanoTime() + stepNanos;
        return d - deadlineNanos < 0 ? d : deadlineNanos;
    }

    private static java.nio.ByteBuffer expect(FrameChannel ch, int type, long stepNanos, long deadlineNanos)
            throws IOException, ProtocolException, VirtuosoException {
        return expectFrame(ch, type, stepNanos, deadlineNanos).body();
    }

    private static Frame expectFrame(FrameChannel ch, int type, long stepNanos, long deadlineNanos)
            throws IOException, ProtocolException, VirtuosoException {
        Frame f = ch.receive(stepDeadline(stepNanos, deadlineNanos));
        if (f.type() == Protocol.ERROR) {
            int code = Fields.u16(f.body());
            String text = Fields.text(f.body());
            throw new VirtuosoException(code == E_NO_PATH ? Reason.NO_PATH : Reason.HANDSHAKE,
                    "peer refused the connection (code " + code + "): " + text);
        }
        if (f.type() != type) {
            throw new ProtocolException("expected " + Protocol.typeName(type) + ", got "
                    + Protocol.typeName(f.type()));
        }
        return f;
    }

    private static VirtuosoException refuse(FrameChannel ch, int code, String text) {
        return refuse(ch, code, text, Reason.HANDSHAKE);
    }

    private static VirtuosoException refuse(FrameChannel ch, int code, String text, Reason reason) {
        refuseQuietly(ch, code, text);
        return new VirtuosoException(reason, text);
    }

    private static void refuseQuietly(FrameChannel ch, ProtocolException e) {
        refuseQuietly(ch, e.versionMismatch() ? E_VERSION : E_MALFORMED, e.getMessage());
    }

    /** Tells the peer why it is dropped; best effort, with a short deadline. */
    static void refuseQuietly(FrameChannel ch, int code, String text) {
        try {
            ch.send(Protocol.ERROR, b -> {
                b.putShort((short) code);
                Fields.text(b, text);
            }, System.nanoTime() + 200_000_000L);
        } catch (IOException | RuntimeException e) {
            // the peer is being dropped anyway
        }
    }

    private static VirtuosoException ioFailure(InetSocketAddress peer, IOException e) {
        if (e instanceof SocketTimeoutException) {
            return new VirtuosoException(Reason.TIMEOUT, "handshake with " + peer + ": " + e.getMessage(), e);
        }
        if (e instanceof EOFException) {
            return new VirtuosoException(Reason.HANDSHAKE, "peer " + peer + " closed the connection during the handshake",
                    e);
        }
        return new VirtuosoException(Reason.IO, "handshake with " + peer + " failed: " + e.getMessage(), e);
    }
}
