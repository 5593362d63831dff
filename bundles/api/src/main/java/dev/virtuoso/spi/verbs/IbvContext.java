package dev.virtuoso.spi.verbs;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * An open RDMA device ({@code struct ibv_context}). Owns every PD, CQ and completion channel
 * created through it: {@link #close()} destroys them all (QPs go to ERR, outstanding work is
 * flushed) and releases the device.
 *
 * <p>Thread-safe.
 */
@ProviderType
public interface IbvContext extends AutoCloseable {

    /** @return the device name */
    String deviceName();

    /**
     * The vNICs of this device: one per IP address usable as a path end point.
     *
     * @return addresses in GID-table order, never {@code null}
     */
    List<Vnic> vnics();

    /**
     * The UDP port on which this device receives RoCEv2 traffic: 4791 on hardware; a soft RNIC may
     * be configured with another so several instances share a host. Peers put it in
     * {@link IbvAhAttr#udpPort(int)}.
     *
     * @return the local RoCEv2 UDP port
     */
    int udpPort();

    /**
     * Reads the device's capabilities, as {@code ibv_query_device}.
     *
     * @return a new attribute object owned by the caller
     * @throws VerbsException if the context is closed
     * @since 1.1
     */
    IbvDeviceAttr queryDevice() throws VerbsException;

    /**
     * Allocates a protection domain, as {@code ibv_alloc_pd}.
     *
     * @return a new PD owned by the caller
     * @throws VerbsException if the context is closed or resources are exhausted
     */
    IbvPd allocPd() throws VerbsException;

    /**
     * Creates a completion event channel, as {@code ibv_create_comp_channel}.
     *
     * @return a new channel owned by the caller
     * @throws VerbsException if the context is closed
     */
    IbvCompChannel createCompChannel() throws VerbsException;

    /**
     * Creates a completion queue, as {@code ibv_create_cq}.
     *
     * @param cqe minimum number of entries; a CQ that overflows moves its QPs to ERR
     * @param channel event channel for {@link IbvCq#reqNotifyCq}, or {@code null} for polling only
     * @return a new CQ owned by the caller
     * @throws VerbsException {@link VerbsException#EINVAL} if {@code cqe < 1}
     */
    IbvCq createCq(int cqe, IbvCompChannel channel) throws VerbsException;

    /**
     * Device-wide counters (packets, bytes, retransmissions, drops by reason).
     *
     * @return a live view, never {@code null}
     */
    VerbsCounters counters();

    /** Closes the device and everything created through it. Idempotent. */
    @Override
    void close();
}
