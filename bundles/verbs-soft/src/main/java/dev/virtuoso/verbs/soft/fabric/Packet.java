package dev.virtuoso.verbs.soft.fabric;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/** A pooled datagram in flight through the fabric; owned by one thread at a time. */
final class Packet {
    /** Direct buffer of the pool's datagram size; 0..length holds the datagram. */
    final ByteBuffer data;
    int length;
    /** System.nanoTime at which the packet reaches the receiving port. */
    long deliverAt;
    /** Scheduler arrival order, breaks ties between equal delivery times (FIFO). */
    long sequence;
    InetSocketAddress source;
    FabricPort target;
    LinkChannel channel;
    /** The channel's up/down epoch when sent: a change means the link went down meanwhile. */
    int epoch;

    Packet(ByteBuffer data) {
        this.data = data;
    }
}
