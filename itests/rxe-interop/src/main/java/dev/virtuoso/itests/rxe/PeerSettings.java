package dev.virtuoso.itests.rxe;

import dev.virtuoso.spi.verbs.IbvMtu;
import java.net.InetAddress;
import java.util.List;

/**
 * Settings of a peer run, the same for every case.
 *
 * @param size message size (perftest -s); at least a page, so perftest keeps one fixed buffer per QP
 * @param iterations messages per path (perftest -n)
 * @param mtu the largest path MTU we offer (perftest's MTU exchange picks the smaller)
 * @param timeoutMillis limit for connecting, for every handshake and for each data phase
 * @param hostAddresses our vNICs: index 0 serves one-path cases, 1.. the paths of multi-path cases
 * @param guestAddresses the guest's addresses, one per path (its GID indexes 1, 2, ...)
 * @param ackTimeout our QPs' local ACK timeout exponent (4.096 us x 2^n; 23 = 34 s, long enough
 *     that emulation stalls cause no retransmission, while a lost packet still shows as one)
 */
public record PeerSettings(int size, int iterations, IbvMtu mtu, int timeoutMillis,
        List<InetAddress> hostAddresses, List<InetAddress> guestAddresses, int ackTimeout) {

    /** Validates and copies. */
    public PeerSettings {
        if (size < 4096 || iterations < 1 || timeoutMillis < 1 || ackTimeout < 1 || ackTimeout > 31) {
            throw new IllegalArgumentException("size >= 4096, iterations >= 1, timeout >= 1 ms, ACK timeout 1..31");
        }
        hostAddresses = List.copyOf(hostAddresses);
        guestAddresses = List.copyOf(guestAddresses);
        if (hostAddresses.size() < 3 || guestAddresses.size() < 2) {
            throw new IllegalArgumentException("need 3 host addresses and 2 guest addresses");
        }
    }

    /**
     * @param paths paths of the case
     * @param path path index
     * @return our vNIC (GID) index for that path
     */
    public int localVnicIndex(int paths, int path) {
        return paths == 1 ? 0 : 1 + path;
    }

    /**
     * @param path path index
     * @return the guest address perftest listens on for that path
     */
    public InetAddress guestAddress(int path) {
        return guestAddresses.get(path);
    }

    /** @return the timeout in nanoseconds */
    public long timeoutNanos() {
        return timeoutMillis * 1_000_000L;
    }
}
