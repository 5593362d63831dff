package dev.virtuoso.verbs.soft.wire;

import java.io.IOException;
import java.net.InetAddress;

/**
 * A datagram network that one soft RNIC device sends its RoCEv2 packets over: the UDP wire (real
 * sockets, one per vNIC address) or the in-process fabric (emulated links with rate, delay, loss).
 *
 * <p>Threading: {@link #open}, {@link #close} from any thread; {@link #await} and everything on a
 * {@link WirePort} only from the device's engine thread, which owns the wire; {@link #wakeup} from
 * any thread (posting threads use it to wake a parked engine).
 */
public interface Wire extends AutoCloseable {

    /**
     * Opens a port for one local vNIC.
     *
     * @param localAddress the vNIC address; packets sent through the port carry it as source IP
     * @param udpPort local UDP port (4791 by default on the UDP wire; 0 picks a free one)
     * @return the port, closed by the wire's {@link #close()} if not before
     * @throws IOException if the address cannot be bound
     */
    WirePort open(InetAddress localAddress, int udpPort) throws IOException;

    /**
     * Engine thread: waits until some port may have a datagram, {@link #wakeup()} is called, or the
     * timeout passes. Returns at once if a datagram or a wakeup is already pending. Spurious returns
     * are allowed.
     *
     * @param timeoutNanos maximum wait
     * @throws IOException if the wire is closed or broken
     */
    void await(long timeoutNanos) throws IOException;

    /**
     * Engine thread, once per duty cycle before the ports' {@link WirePort#receive} calls: lets a wire
     * whose empty receive costs a system call per port learn which ports have input with one call,
     * so receive on the others returns at once. {@link #await} does the same when it returns. A wire
     * without that cost does nothing here.
     *
     * @throws IOException if the wire is closed or broken
     */
    default void pollReadiness() throws IOException {
        // every port's receive is cheap when empty
    }

    /** Any thread: makes the current or the next {@link #await} return early. */
    void wakeup();

    /** Closes every port. Idempotent. */
    @Override
    void close();
}
