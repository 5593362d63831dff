package dev.virtuoso.spi.verbs;

/** Path MTU ({@code enum ibv_mtu}): the payload size of one RoCEv2 packet. */
public enum IbvMtu {
    MTU_256(256),
    MTU_512(512),
    MTU_1024(1024),
    MTU_2048(2048),
    MTU_4096(4096);

    private final int bytes;

    IbvMtu(int bytes) {
        this.bytes = bytes;
    }

    /** @return the payload bytes per packet */
    public int bytes() {
        return bytes;
    }

    /**
     * @param bytes 256, 512, 1024, 2048 or 4096
     * @return the matching MTU
     * @throws IllegalArgumentException for any other value
     */
    public static IbvMtu ofBytes(int bytes) {
        for (IbvMtu m : values()) {
            if (m.bytes == bytes) {
                return m;
            }
        }
        throw new IllegalArgumentException("MTU must be 256, 512, 1024, 2048 or 4096: " + bytes);
    }
}
