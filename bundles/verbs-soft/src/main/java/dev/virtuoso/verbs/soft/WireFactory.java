package dev.virtuoso.verbs.soft;

import java.io.IOException;

import dev.virtuoso.verbs.soft.fabric.FabricNetwork;
import dev.virtuoso.verbs.soft.udp.UdpWire;
import dev.virtuoso.verbs.soft.udp.UdpWireOptions;
import dev.virtuoso.verbs.soft.wire.Wire;

/**
 * Creates the {@link Wire} of a soft RNIC device each time the device starts (it closes the wire
 * when it stops).
 */
@FunctionalInterface
public interface WireFactory {

    /**
     * @param deviceName the device starting
     * @return a new wire, owned by the device
     * @throws IOException if it cannot be created
     */
    Wire create(String deviceName) throws IOException;

    /** @return real UDP sockets with the default socket buffers */
    static WireFactory udp() {
        return name -> new UdpWire();
    }

    /**
     * @param options socket buffer sizes
     * @return real UDP sockets
     */
    static WireFactory udp(UdpWireOptions options) {
        return name -> new UdpWire(options);
    }

    /**
     * @param network an in-process fabric
     * @param host the fabric host the device sits on (its addresses are the device's vNICs)
     * @return a wire onto that host of the fabric
     */
    static WireFactory fabric(FabricNetwork network, String host) {
        return name -> network.wire(host);
    }
}
