/**
 * Decomposer: splits MP_WRITE, MP_READ and MP_SEND work requests into chunks, places them on the
 * paths of a connection with the connection's load-balancing and congestion-avoidance sessions,
 * and reports one completion per MP work request once every chunk has completed.
 *
 * <p>The {@link dev.virtuoso.decomposer.Decomposer} service creates one
 * {@link dev.virtuoso.decomposer.Decomposition} per connection. A decomposition is owned by the
 * connection's engine thread: every method is called on that thread only. Chunks leave through a
 * {@link dev.virtuoso.decomposer.ChunkTransport} the QP manager implements (one RC QP per path);
 * the decomposition keeps the core-side path state ({@link dev.virtuoso.decomposer.PathTable}).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.3.0")
package dev.virtuoso.decomposer;
