package dev.virtuoso.verbs.soft.packet;

/** Reference CRC-32 (IEEE 802.3, reflected, as zlib), one bit at a time: independent of java.util.zip. */
final class BitwiseCrc32 {
    private BitwiseCrc32() {
    }

    static int of(byte[] data) {
        int crc = 0xFFFFFFFF;
        for (byte b : data) {
            crc ^= b & 0xFF;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0xEDB88320 : crc >>> 1;
            }
        }
        return ~crc;
    }
}
