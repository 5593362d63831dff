package dev.virtuoso.api;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One logical RDMA connection carried by several paths (one RC QP each).
 *
 * <h2>Work requests</h2>
 * {@code post*} methods are thread-safe and non-blocking: they validate, enqueue and return. The
 * connection's engine thread splits each MP work request into chunks, places them on paths with
 * the connection's load-balancing and congestion-avoidance sessions, and reports exactly one
 * {@link MpCompletion} per request, successful only when every chunk succeeded. Chunks of a failed
 * path are re-posted on the others (failover), so a path failure alone does not fail a request.
 * Regions passed in must be registered with this connection and stay registered until the
 * completion arrives.
 *
 * <h2>Ordering</h2>
 * Completions of MP_RECV are delivered in the order of the peer's MP_SENDs, and only after every
 * byte of the message has been placed. Completions of different MP_WRITE/MP_READ requests may
 * arrive in any order.
 *
 * <h2>Errors</h2>
 * Invalid arguments (ranges outside a region, regions of another connection, missing access
 * rights) throw {@link IllegalArgumentException} at post time; a closed connection or a full queue
 * throws {@link VirtuosoException}.
 */
@ProviderType
public interface MultipathConnection extends AutoCloseable {

    /** @return an identifier unique in this process (for logs, statistics and commands) */
    String id();

    /** @return the current state */
    ConnectionState state();

    /**
     * @return why the connection ended (for example "peer disconnected", "no usable path for 10000
     *     ms", "peer gone: ..."), or {@code null} while it is open: what the completions it flushed
     *     do not say
     * @since 1.4
     */
    default String endReason() {
        return null;
    }

    /** @return the peer's bootstrap address */
    InetSocketAddress remoteBootstrapAddress();

    /**
     * Registers a direct buffer (its position..limit) in the connection's protection domain.
     *
     * @param buffer a direct buffer owned by the caller
     * @param access rights; {@link Access#REMOTE_WRITE} implies {@link Access#LOCAL_WRITE}
     * @return the region, owned by the caller
     * @throws IllegalArgumentException for a heap buffer or an empty range
     * @throws VirtuosoException {@code CLOSED} or {@code VERBS} on failure
     */
    MemoryRegion register(ByteBuffer buffer, Set<Access> access) throws VirtuosoException;

    /**
     * MP_WRITE: writes {@code length} bytes from a local region into a peer region.
     *
     * @param wrId identifier echoed in the completion
     * @param local source region
     * @param localOffset offset in the source region
     * @param length bytes to write; 0 is allowed
     * @param remote destination region of the peer (needs remote write rights there)
     * @param remoteOffset offset in the destination region
     * @throws VirtuosoException {@code CLOSED} or {@code QUEUE_FULL}
     */
    void postWrite(long wrId, MemoryRegion local, long localOffset, long length, RemoteMemory remote,
            long remoteOffset) throws VirtuosoException;

    /**
     * MP_READ: reads {@code length} bytes from a peer region into a local region (which needs
     * {@link Access#LOCAL_WRITE}).
     *
     * @param wrId identifier echoed in the completion
     * @param local destination region
     * @param localOffset offset in the destination region
     * @param length bytes to read; 0 is allowed
     * @param remote source region of the peer (needs remote read rights there)
     * @param remoteOffset offset in the source region
     * @throws VirtuosoException {@code CLOSED} or {@code QUEUE_FULL}
     */
    void postRead(long wrId, MemoryRegion local, long localOffset, long length, RemoteMemory remote,
            long remoteOffset) throws VirtuosoException;

    /**
     * MP_SEND: sends a message that consumes one MP_RECV of the peer. Messages below the split
     * threshold travel whole on one path; larger ones are written straight into the peer's posted
     * receive buffer over several paths.
     *
     * @param wrId identifier echoed in the completion
     * @param local source region
     * @param offset offset in the source region
     * @param length message length; 0 is allowed
     * @throws VirtuosoException {@code CLOSED} or {@code QUEUE_FULL}
     */
    void postSend(long wrId, MemoryRegion local, long offset, long length) throws VirtuosoException;

    /**
     * MP_RECV: posts a buffer for one incoming MP_SEND. Buffers are consumed in posting order; a
     * message longer than the buffer completes with {@link MpStatus#LOCAL_LENGTH_ERROR}.
     *
     * @param wrId identifier echoed in the completion
     * @param local destination region (needs {@link Access#LOCAL_WRITE} and, for large messages,
     *     {@link Access#REMOTE_WRITE}, which registration grants on request)
     * @param offset offset in the region
     * @param length buffer length
     * @throws VirtuosoException {@code CLOSED} or {@code QUEUE_FULL}
     */
    void postRecv(long wrId, MemoryRegion local, long offset, long length) throws VirtuosoException;

    /**
     * Takes completed MP work requests without waiting and without allocating.
     *
     * @param out caller-owned completion objects to fill
     * @return how many of {@code out} were filled (0 if none)
     */
    int pollCompletions(MpCompletion[] out);

    /**
     * Waits for one completion.
     *
     * @param out filled with the completion
     * @param timeout maximum wait
     * @param unit unit of {@code timeout}
     * @return true if {@code out} was filled, false on timeout
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitCompletion(MpCompletion out, long timeout, TimeUnit unit) throws InterruptedException;

    /** @return a snapshot of every path's statistics, in path-slot order */
    List<PathStats> pathStats();

    /**
     * Adds a path to the live connection: a new QP is created and connected through the peer.
     *
     * @param local local vNIC address
     * @param remote remote vNIC address
     * @return the new path's slot number
     * @throws VirtuosoException if the peer refuses or the QP cannot be brought up
     */
    int addPath(InetAddress local, InetAddress remote) throws VirtuosoException;

    /**
     * Removes a path: it leaves the placement at once, its outstanding chunks are finished or
     * re-posted elsewhere, then its QP is destroyed.
     *
     * @param pathId slot number from {@link PathStats#pathId()}
     * @throws VirtuosoException if it is the last usable path or the connection is closed
     */
    void removePath(int pathId) throws VirtuosoException;

    /** @return the name of the load-balancing policy in use */
    String loadBalancer();

    /**
     * Switches the load-balancing policy at the next chunk boundary; no byte is lost. The name becomes
     * the connection's chosen policy: while it is not registered (its bundle stopped or being updated)
     * the connection runs on the fallback ({@link ConnectOptions#fallbackLoadBalancer()}, else the
     * built-in one) and returns to it when it registers again.
     *
     * @param name a registered policy name (or {@link ConnectOptions#BUILTIN_ROUND_ROBIN})
     * @throws VirtuosoException {@code UNKNOWN_POLICY} if none is registered under that name
     */
    void setLoadBalancer(String name) throws VirtuosoException;

    /** @return the name of the congestion-avoidance policy in use */
    String congestionAvoidance();

    /**
     * Switches the congestion-avoidance policy at the next chunk boundary.
     *
     * @param name a registered policy name (or {@link ConnectOptions#BUILTIN_FIXED_CHUNK})
     * @throws VirtuosoException {@code UNKNOWN_POLICY} if none is registered under that name
     */
    void setCongestionAvoidance(String name) throws VirtuosoException;

    /**
     * Disconnects ({@code MP_rdma_disconnect}): stops accepting work, lets outstanding work drain
     * for up to {@code timeout}, flushes the rest ({@link MpStatus#FLUSHED}), tells the peer, and
     * releases every QP, CQ, registration and thread.
     *
     * @param timeout drain limit
     * @param unit unit of {@code timeout}
     */
    void disconnect(long timeout, TimeUnit unit);

    /** Disconnects with a drain limit of 5 seconds. Idempotent. */
    @Override
    void close();
}
