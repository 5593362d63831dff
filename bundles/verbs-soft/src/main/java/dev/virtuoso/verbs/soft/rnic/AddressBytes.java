package dev.virtuoso.verbs.soft.rnic;

import java.net.InetAddress;

/**
 * A tiny cache from IP address objects to their bytes ({@link InetAddress#getAddress()} allocates
 * a copy each call), for ICRC checks on received packets. Engine thread only.
 */
final class AddressBytes {
    private final InetAddress[] keys = new InetAddress[16];
    private final byte[][] values = new byte[16][];
    private int next;

    byte[] of(InetAddress a) {
        for (int i = 0; i < keys.length; i++) {
            InetAddress k = keys[i];
            if (k == null) {
                break;
            }
            if (k == a || k.equals(a)) {
                return values[i];
            }
        }
        int i = next;
        next = (next + 1) % keys.length;
        keys[i] = a;
        values[i] = a.getAddress();
        return values[i];
    }
}
