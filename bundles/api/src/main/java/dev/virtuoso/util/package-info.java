/**
 * Small utilities shared by the core, the providers and the policies: {@link
 * dev.virtuoso.util.TypedProperties}, the one reader of configuration and per-connection override
 * maps, {@link dev.virtuoso.util.SlotRing}, the one bounded lock-free ring of preallocated slots,
 * {@link dev.virtuoso.util.IdleShift}, the one rule that shrinks a spin before blocking, and {@link
 * dev.virtuoso.util.InvokerLease} with {@link dev.virtuoso.util.DutyClaim}, the one rule for when
 * an agent's thread stands back for pollers and the one claim on its duty cycle.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.3.0")
package dev.virtuoso.util;
