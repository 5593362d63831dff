package dev.virtuoso.verbs.disni.sysfs;

import java.net.Inet4Address;
import java.net.InetAddress;

import dev.virtuoso.spi.verbs.Vnic;

/**
 * One RoCE v2 GID table entry of an RDMA device port, as the kernel publishes it in sysfs: the IP
 * address it stands for (a vNIC), its index and the netdev carrying the address.
 *
 * @param port device port, 1-based
 * @param index GID table index on that port (the {@code sgid_index} of an address vector)
 * @param address the IP address the GID encodes ({@code ::ffff:a.b.c.d} decodes to IPv4)
 * @param netdev the network interface the address lives on, empty if sysfs does not say
 */
public record RoceGid(int port, int index, InetAddress address, String netdev) {

    public RoceGid {
        if (address == null) {
            throw new IllegalArgumentException("address is required");
        }
        netdev = netdev == null ? "" : netdev;
    }

    /** @return true for IPv4 addresses, the only ones DiSNI 2.1's RDMA CM calls accept */
    public boolean isIpv4() {
        return address instanceof Inet4Address;
    }

    /** @return the SPI view of this entry */
    public Vnic toVnic() {
        return new Vnic(address, index, netdev);
    }
}
