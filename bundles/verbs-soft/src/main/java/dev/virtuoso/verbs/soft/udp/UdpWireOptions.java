package dev.virtuoso.verbs.soft.udp;

/**
 * Socket settings of a {@link UdpWire}. The kernel caps buffer sizes at
 * {@code net.core.rmem_max}/{@code wmem_max}; {@link UdpWirePort#receiveBufferBytes()} tells what
 * was granted.
 *
 * @param receiveBufferBytes requested SO_RCVBUF of each port
 * @param sendBufferBytes requested SO_SNDBUF of each port
 */
public record UdpWireOptions(int receiveBufferBytes, int sendBufferBytes) {
    /** 8 MiB receive, 4 MiB send. */
    public static final UdpWireOptions DEFAULTS = new UdpWireOptions(8 << 20, 4 << 20);

    public UdpWireOptions {
        if (receiveBufferBytes < 4096 || sendBufferBytes < 4096) {
            throw new IllegalArgumentException("socket buffers must be at least 4096 bytes");
        }
    }
}
