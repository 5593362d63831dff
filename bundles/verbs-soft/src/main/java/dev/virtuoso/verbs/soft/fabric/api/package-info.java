/**
 * Runtime control of the soft RNIC's in-process fabric: list links, take them down and up, change
 * rate, delay, loss and queue, read their counters. Registered as an OSGi service while the soft
 * provider runs on the fabric wire.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package dev.virtuoso.verbs.soft.fabric.api;
