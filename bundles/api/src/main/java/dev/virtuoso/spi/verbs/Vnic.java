package dev.virtuoso.spi.verbs;

import java.net.InetAddress;

/**
 * A virtual NIC: one IP address (an alias on the RNIC's netdev) and its RoCEv2 GID index. A path
 * of a multipath connection is a pair of vNICs, one per side; traffic of a QP bound to a vNIC leaves
 * with that vNIC's address as source IP, which is how switches steer it onto its path.
 *
 * @param address the IPv4 or IPv6 address
 * @param gidIndex the RoCEv2 GID index of this address on the device port
 * @param netdev the network interface carrying the address (informational; may be empty)
 */
public record Vnic(InetAddress address, int gidIndex, String netdev) {
    public Vnic {
        if (address == null) {
            throw new IllegalArgumentException("address is required");
        }
        if (gidIndex < 0) {
            throw new IllegalArgumentException("gidIndex must be >= 0: " + gidIndex);
        }
        netdev = netdev == null ? "" : netdev;
    }
}
