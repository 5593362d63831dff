package dev.virtuoso.spi.verbs;

import java.util.List;

/**
 * Description of an RDMA device and the vNICs (IP addresses bound to it) usable as paths.
 *
 * @param name device name, e.g. {@code mlx5_0} or {@code soft0}
 * @param vnics the addresses usable as path end points, in GID-table order
 */
public record RdmaDevice(String name, List<Vnic> vnics) {
    public RdmaDevice {
        vnics = List.copyOf(vnics);
    }
}
