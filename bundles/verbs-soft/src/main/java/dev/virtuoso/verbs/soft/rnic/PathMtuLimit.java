package dev.virtuoso.verbs.soft.rnic;

import java.net.Inet4Address;
import java.net.InetAddress;

import dev.virtuoso.spi.verbs.IbvMtu;

/**
 * The largest path MTU whose RoCEv2 datagrams fit a vNIC's network interface. A larger one would
 * leave the UDP socket IP-fragmented: on Java 17 the socket cannot set IP_DONTFRAGMENT, so the
 * kernel fragments silently, and RoCE peers (rxe, RNICs) drop fragments; with DF the kernel refuses
 * the send instead. Either way the path cannot carry the traffic, so the QP refuses the MTU.
 */
final class PathMtuLimit {

    /** BTH 12 + RETH 16 + ImmDt 4 (the largest headers of a packet with payload) + ICRC 4. */
    static final int MAX_ROCE_OVERHEAD = 36;
    private static final int UDP_HEADER = 8;
    private static final int IPV4_HEADER = 20;
    private static final int IPV6_HEADER = 40;

    private PathMtuLimit() {
    }

    /**
     * @param mtu a path MTU
     * @param ipv4 whether the datagrams are IPv4 (else IPv6)
     * @return the largest IP datagram a packet of that path MTU makes
     */
    static int datagramBytes(IbvMtu mtu, boolean ipv4) {
        return mtu.bytes() + MAX_ROCE_OVERHEAD + UDP_HEADER + (ipv4 ? IPV4_HEADER : IPV6_HEADER);
    }

    /**
     * @param mtu the path MTU asked for
     * @param vnic the vNIC address the QP sends from
     * @param interfaceMtu the MTU of the vNIC's interface, 0 if unknown (then anything is allowed)
     * @return why the path MTU is refused, or {@code null} if its datagrams fit
     */
    static String problem(IbvMtu mtu, InetAddress vnic, int interfaceMtu) {
        boolean ipv4 = vnic instanceof Inet4Address;
        if (interfaceMtu <= 0 || datagramBytes(mtu, ipv4) <= interfaceMtu) {
            return null;
        }
        IbvMtu fits = null;
        for (IbvMtu m : IbvMtu.values()) {
            if (datagramBytes(m, ipv4) <= interfaceMtu && (fits == null || m.bytes() > fits.bytes())) {
                fits = m;
            }
        }
        return "path MTU " + mtu.bytes() + " makes " + datagramBytes(mtu, ipv4) + "-byte datagrams but vNIC "
                + vnic.getHostAddress() + " is on an interface with MTU " + interfaceMtu
                + ": they would be IP-fragmented, which RoCE peers drop; "
                + (fits == null ? "no path MTU fits: raise the interface MTU"
                        : "use a path MTU of at most " + fits.bytes() + " or raise the interface MTU");
    }
}
