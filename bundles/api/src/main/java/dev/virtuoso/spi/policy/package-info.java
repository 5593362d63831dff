/**
 * Policy SPI: load balancing (which path carries the next chunk of a message) and congestion
 * avoidance (how big a chunk may be and how many may be outstanding on a path).
 *
 * <p>A policy bundle registers a factory service ({@link dev.virtuoso.spi.policy.LoadBalancerPolicy}
 * or {@link dev.virtuoso.spi.policy.CongestionAvoidancePolicy}) with the service property
 * {@value dev.virtuoso.spi.policy.LoadBalancerPolicy#NAME_PROPERTY}. The core creates one stateful
 * session per connection; one policy bundle thus serves many connections, and a connection can swap
 * its session for another policy's between two chunks (hot swap).
 *
 * <h2>Threading and lifetime</h2>
 * Sessions are called only by the owning connection's engine thread, never concurrently, and must
 * not block or allocate on the per-chunk methods. After {@code close()} returns the core never
 * calls the session again; when a policy service goes away the core closes its sessions (at the
 * next chunk boundary) and moves connections to the fallback policy, and when a connection's chosen
 * policy registers again (its bundle restarted or updated) the connection returns to it at the next
 * chunk boundary.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package dev.virtuoso.spi.policy;
