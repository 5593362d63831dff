/**
 * Path monitor API: per-connection path state (what policies read through
 * {@link dev.virtuoso.spi.policy.PathStateView}), passive rate estimation from every chunk
 * completion, path health, and active capacity probing planned by the monitor and executed by the
 * core.
 *
 * <h2>How the core uses it</h2>
 * The core looks up the optional {@link dev.virtuoso.pathmonitor.api.PathMonitorFactory} service and
 * creates one {@link dev.virtuoso.pathmonitor.api.PathMonitor} per connection. The connection's
 * engine thread then:
 * <ol>
 * <li>calls {@link dev.virtuoso.pathmonitor.api.PathMonitor#tick} with {@link System#nanoTime()} at
 * the start of every duty cycle (the monitor's clock, also returned by
 * {@link dev.virtuoso.spi.policy.PathStateView#nowNanos()});</li>
 * <li>reports paths ({@code onPathAdded}, {@code onPathState}), chunk posts and completions;</li>
 * <li>drains {@link dev.virtuoso.pathmonitor.api.PathMonitor#nextProbe} and posts each probe WRITE
 * into the peer's scratch region, reporting its completion with {@code onProbeCompleted};</li>
 * <li>hands the monitor to the policy sessions as their {@code PathStateView}.</li>
 * </ol>
 * Since 1.2 the core also shares probe results between its connections: a new path whose path
 * pair another connection probed is offered that capacity
 * ({@link dev.virtuoso.pathmonitor.api.PathMonitor#seedCapacity}), and each capacity a monitor
 * measures ({@link dev.virtuoso.pathmonitor.api.PathMonitor#capacityMeasurements}) is shared.
 * Every method of a monitor except {@code statistics} and {@code close} is called on that engine
 * thread only; none blocks, none allocates in steady state.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.2.0")
package dev.virtuoso.pathmonitor.api;
