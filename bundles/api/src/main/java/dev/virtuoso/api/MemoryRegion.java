package dev.virtuoso.api;

import java.nio.ByteBuffer;
import java.util.Set;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Application memory registered with a connection: one registration in the connection's protection
 * domain, usable by every path, so chunks of a message move straight between this memory and the
 * wire (zero copy).
 *
 * <p>The application owns the buffer and must keep it reachable and not touch bytes an outstanding
 * MP work request reads or writes. Thread-safe. {@link #close()} deregisters; the region must then
 * not be used in new work requests, and outstanding ones fail.
 */
@ProviderType
public interface MemoryRegion extends AutoCloseable {

    /** @return the registered buffer (a duplicate: position 0, limit {@link #length()}) */
    ByteBuffer buffer();

    /** @return registered length in bytes */
    int length();

    /** @return the access rights granted */
    Set<Access> access();

    /** @return the descriptor a peer needs to MP_WRITE into or MP_READ from this region */
    RemoteMemory remote();

    /** Deregisters the region. Idempotent. */
    @Override
    void close();
}
