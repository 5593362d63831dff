package dev.virtuoso.verbs.soft.fabric;

import java.net.InetAddress;
import java.util.List;

/**
 * A named host of a {@link FabricNetwork} and the addresses (vNICs) it owns.
 *
 * @param name unique within the network
 * @param addresses owned addresses, each unique within the network
 */
public record FabricHost(String name, List<InetAddress> addresses) {
    public FabricHost {
        addresses = List.copyOf(addresses);
    }

    /** @return true if this host owns {@code address} */
    public boolean owns(InetAddress address) {
        return addresses.contains(address);
    }
}
