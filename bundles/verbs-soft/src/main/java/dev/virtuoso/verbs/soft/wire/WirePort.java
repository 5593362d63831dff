package dev.virtuoso.verbs.soft.wire;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** One local vNIC's end of a {@link Wire}. Used only by the device's engine thread. */
public interface WirePort extends AutoCloseable {

    /** @return local vNIC address and UDP port */
    InetSocketAddress localAddress();

    /**
     * Sends {@code datagram}'s position..limit as one UDP payload (BTH through ICRC). The bytes are
     * consumed before the call returns, so the caller may reuse the buffer. Never blocks.
     *
     * @param datagram the payload
     * @param destination remote vNIC address and UDP port
     * @return false if the datagram was dropped locally (socket buffer or queue full; counted by the
     *     wire), true if it left
     * @throws IOException if the port is closed or the network fails
     */
    boolean send(ByteBuffer datagram, InetSocketAddress destination) throws IOException;

    /**
     * Hands up to {@code limit} received datagrams to {@code handler}, without blocking.
     *
     * @param handler called once per datagram, on the calling thread
     * @param limit maximum datagrams to take
     * @return how many were handed over
     * @throws IOException if the port is closed or the network fails
     */
    int receive(DatagramHandler handler, int limit) throws IOException;

    /** Closes the port. Idempotent. */
    @Override
    void close();
}
