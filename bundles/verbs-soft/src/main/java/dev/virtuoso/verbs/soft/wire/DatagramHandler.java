package dev.virtuoso.verbs.soft.wire;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** Receives datagrams from a {@link WirePort}. */
@FunctionalInterface
public interface DatagramHandler {

    /**
     * One received datagram. The buffer and addresses are valid only during the call: copy what
     * must outlive it. Input is untrusted: validate before use.
     *
     * @param datagram position..limit is the UDP payload (BTH through ICRC)
     * @param source sender's address and UDP port
     * @param destination the local address and port it arrived at
     */
    void onDatagram(ByteBuffer datagram, InetSocketAddress source, InetSocketAddress destination);
}
