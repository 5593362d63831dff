package dev.virtuoso.reassembler;

import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.VerbsException;

import org.osgi.annotation.versioning.ProviderType;

/** Factory of per-connection reassemblies, published as an OSGi service. Thread-safe. */
@ProviderType
public interface Reassembler {

    /**
     * Creates the reassembly state of one connection: registers the slot memory and creates the
     * shared receive queue in {@code pd}; the caller attaches every path QP to
     * {@link Reassembly#srq()}.
     *
     * @param config local sizes
     * @param pd the connection's protection domain
     * @return a new reassembly, owned by the caller
     * @throws VerbsException if the slot memory or the SRQ cannot be created
     * @throws IllegalArgumentException if {@code config} has fewer than 3 slots or slots under 64 bytes
     */
    Reassembly newReassembly(ReassemblyConfig config, IbvPd pd) throws VerbsException;

    /**
     * Creates the reassembly state of one connection for a device with the given capabilities: with
     * SRQs ({@link IbvDeviceAttr#maxSrq()} not 0) as {@link #newReassembly(ReassemblyConfig, IbvPd)};
     * without, every path QP gets a receive queue of its own holding a full set of
     * slots ({@link Reassembly#configureQp}, {@link Reassembly#attachQp}), with the same guarantees.
     *
     * @param config local sizes
     * @param pd the connection's protection domain
     * @param device the device's capabilities ({@code IbvContext.queryDevice()})
     * @return a new reassembly, owned by the caller
     * @throws VerbsException if the slot memory or the SRQ cannot be created
     * @throws IllegalArgumentException if {@code config} has fewer than 3 slots or slots under 64 bytes
     * @since 1.1
     */
    Reassembly newReassembly(ReassemblyConfig config, IbvPd pd, IbvDeviceAttr device) throws VerbsException;
}
