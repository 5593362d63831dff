package dev.virtuoso.verbs.soft.packet;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32;

/**
 * The RoCEv2 invariant CRC: zlib CRC-32 over eight 0xFF bytes (the masked LRH), the IP header with
 * its variant fields (IPv4 TOS, TTL, checksum; IPv6 traffic class, flow label, hop limit) set to
 * ones, the UDP header with checksum 0xFFFF, the BTH with its byte 4 (FECN/BECN/reserved) set to
 * 0xFF, then every remaining byte of the UDP payload except the ICRC itself. Stored least
 * significant byte first.
 *
 * <p>The IPv4 identification and flags are covered but not visible to a Java socket; this transport
 * sends with DF set and assumes identification 0, which is what Linux uses for such datagrams when
 * the socket forbids fragmentation (Java 19+). Received IPv4 packets are checked by
 * {@link #verify} with the identification unknown: Linux rxe and Java 17 senders use IDs the
 * receiver cannot see.
 *
 * <p>Not thread-safe (reuses its CRC and scratch header); allocates nothing after construction.
 */
public final class Icrc {
    /** IPv4 "don't fragment" flag as it appears in the flags/fragment-offset field. */
    public static final int IPV4_DF = 0x4000;

    private static final int IPV4_HEADER = 20;
    private static final int IPV6_HEADER = 40;
    private static final int UDP_HEADER = 8;
    private static final int UDP_PROTOCOL = 17;

    /** Datagram lengths whose identification subspace is cached (direct-mapped). */
    private static final int CACHED_LENGTHS = 16;
    /** Offset of the IPv4 identification in the ICRC's input (after the 8 masked LRH bytes). */
    private static final int IPV4_ID_AT = 8 + 4;

    /** The CRC-32 polynomial, bit-reflected (bit 31 is the coefficient of x^0). */
    private static final int POLY = 0xEDB88320;
    /** The polynomial 1 in that representation. */
    private static final int ONE = 0x80000000;

    private final CRC32 crc = new CRC32();
    private final byte[] pseudo = new byte[8 + IPV6_HEADER + UDP_HEADER + RcOpcode.BTH_BYTES];
    private final byte[] zeros = new byte[IPV4_ID_AT];
    private final int[] cachedLength = new int[CACHED_LENGTHS];
    /** Per cached length: a basis of the ICRC changes an IPv4 ID can cause, by leading bit. */
    private final int[][] idBasis = new int[CACHED_LENGTHS][32];
    /** x^(2^k) mod P, k = 0..31: appending 2^(k-3) zero bytes multiplies a CRC difference by entry k. */
    private final int[] xPow2k = new int[32];
    /**
     * The ICRC difference of ID bit 7 (the last of the field's 16 bits on the wire, CRC-32 taking
     * each byte least significant bit first) when nothing follows the ID field.
     */
    private final int lastIdBitDelta;

    public Icrc() {
        xPow2k[0] = ONE >>> 1; // x^1
        for (int k = 1; k < 32; k++) {
            xPow2k[k] = multModP(xPow2k[k - 1], xPow2k[k - 1]);
        }
        lastIdBitDelta = idFieldCrc(7) ^ idFieldCrc(-1);
    }

    /**
     * Computes the ICRC assuming IPv4 identification 0 and DF set.
     *
     * @param srcIp source address, 4 or 16 bytes (both must have the same length)
     * @param dstIp destination address
     * @param srcPort UDP source port
     * @param dstPort UDP destination port
     * @param datagram holds the UDP payload (BTH through ICRC); position and limit are preserved
     * @param off index of the BTH in {@code datagram}
     * @param len UDP payload length including the 4 ICRC bytes (at least 16)
     * @return the ICRC value as an int (store it with {@link #store})
     */
    public int compute(byte[] srcIp, byte[] dstIp, int srcPort, int dstPort, ByteBuffer datagram,
            int off, int len) {
        return compute(srcIp, dstIp, 0, IPV4_DF, srcPort, dstPort, datagram, off, len);
    }

    /**
     * Computes the ICRC with explicit IPv4 identification and flags (ignored for IPv6).
     *
     * @param srcIp source address, 4 or 16 bytes
     * @param dstIp destination address, same length
     * @param ipId IPv4 identification field
     * @param ipFlagsFragment IPv4 flags and fragment offset field (e.g. {@link #IPV4_DF})
     * @param srcPort UDP source port
     * @param dstPort UDP destination port
     * @param datagram holds the UDP payload; position and limit are preserved
     * @param off index of the BTH
     * @param len UDP payload length including the ICRC
     * @return the ICRC
     */
    public int compute(byte[] srcIp, byte[] dstIp, int ipId, int ipFlagsFragment, int srcPort,
            int dstPort, ByteBuffer datagram, int off, int len) {
        if (len < RcOpcode.BTH_BYTES + RcOpcode.ICRC_BYTES) {
            throw new IllegalArgumentException("datagram too short for an ICRC: " + len);
        }
        byte[] h = pseudo;
        for (int i = 0; i < 8; i++) {
            h[i] = (byte) 0xFF;
        }
        int p = 8;
        int udpLength = UDP_HEADER + len;
        if (srcIp.length == 4 && dstIp.length == 4) {
            h[p] = 0x45;
            h[p + 1] = (byte) 0xFF; // TOS masked
            put16(h, p + 2, IPV4_HEADER + udpLength);
            put16(h, p + 4, ipId);
            put16(h, p + 6, ipFlagsFragment);
            h[p + 8] = (byte) 0xFF; // TTL masked
            h[p + 9] = UDP_PROTOCOL;
            h[p + 10] = (byte) 0xFF; // header checksum masked
            h[p + 11] = (byte) 0xFF;
            System.arraycopy(srcIp, 0, h, p + 12, 4);
            System.arraycopy(dstIp, 0, h, p + 16, 4);
            p += IPV4_HEADER;
        } else if (srcIp.length == 16 && dstIp.length == 16) {
            // version 6, traffic class and flow label masked to ones
            h[p] = 0x6F;
            h[p + 1] = (byte) 0xFF;
            h[p + 2] = (byte) 0xFF;
            h[p + 3] = (byte) 0xFF;
            put16(h, p + 4, udpLength);
            h[p + 6] = UDP_PROTOCOL;
            h[p + 7] = (byte) 0xFF; // hop limit masked
            System.arraycopy(srcIp, 0, h, p + 8, 16);
            System.arraycopy(dstIp, 0, h, p + 24, 16);
            p += IPV6_HEADER;
        } else {
            throw new IllegalArgumentException("addresses must both be IPv4 or both IPv6");
        }
        put16(h, p, srcPort);
        put16(h, p + 2, dstPort);
        put16(h, p + 4, udpLength);
        h[p + 6] = (byte) 0xFF; // UDP checksum masked
        h[p + 7] = (byte) 0xFF;
        p += UDP_HEADER;
        for (int i = 0; i < RcOpcode.BTH_BYTES; i++) {
            h[p + i] = datagram.get(off + i);
        }
        h[p + 4] = (byte) 0xFF; // FECN, BECN, reserved
        p += RcOpcode.BTH_BYTES;

        CRC32 c = crc;
        c.reset();
        c.update(h, 0, p);
        int savedPosition = datagram.position();
        int savedLimit = datagram.limit();
        datagram.limit(off + len - RcOpcode.ICRC_BYTES).position(off + RcOpcode.BTH_BYTES);
        c.update(datagram);
        datagram.limit(savedLimit).position(savedPosition);
        return (int) c.getValue();
    }

    /**
     * Checks a received packet's ICRC. For IPv6 the value must match exactly. For IPv4 (DF set) it
     * must match for some identification: CRC-32 is affine, so the ICRCs of one packet under all
     * 65536 IDs differ from the ID-0 value by the elements of a 16-dimensional subspace, and the
     * check is whether the difference lies in it. This keeps 16 of the 32 bits against corruption
     * (UDP's checksum covers the rest) and costs one CRC over the packet, like an exact check.
     *
     * @param srcIp source address, 4 or 16 bytes
     * @param dstIp destination address, same length
     * @param srcPort UDP source port
     * @param dstPort UDP destination port
     * @param datagram holds the UDP payload; position and limit are preserved
     * @param off index of the BTH
     * @param len UDP payload length including the ICRC
     * @return true if the stored ICRC is one the sender could have computed
     */
    public boolean verify(byte[] srcIp, byte[] dstIp, int srcPort, int dstPort, ByteBuffer datagram,
            int off, int len) {
        int delta = compute(srcIp, dstIp, srcPort, dstPort, datagram, off, len)
                ^ stored(datagram, off, len);
        if (delta == 0) {
            return true;
        }
        if (srcIp.length != 4) {
            return false;
        }
        int[] basis = idBasis(len);
        for (int bit = 31; bit >= 0 && delta != 0; bit--) {
            if ((delta >>> bit & 1) != 0 && basis[bit] != 0) {
                delta ^= basis[bit];
            }
        }
        return delta == 0;
    }

    /**
     * The ID subspace for IPv4 packets of this UDP payload length (cached, computed on a miss). The
     * ICRC difference of the ID field's last bit is its difference with nothing after the field
     * times x^(8 * bytes after it) mod P, and each earlier bit's is the next one's times x, so a
     * miss costs a few polynomial products whatever the length: a sender alternating lengths that
     * share a slot cannot make the check cost a CRC per length.
     */
    private int[] idBasis(int len) {
        int slot = len & (CACHED_LENGTHS - 1);
        int[] basis = idBasis[slot];
        if (cachedLength[slot] == len) {
            return basis;
        }
        Arrays.fill(basis, 0);
        // the ICRC's input: LRH, IPv4 and UDP headers, then the payload without the ICRC
        int total = 8 + IPV4_HEADER + UDP_HEADER + len - RcOpcode.ICRC_BYTES;
        int last = multModP(xPow8n(total - IPV4_ID_AT - 2), lastIdBitDelta);
        for (int j = 0; j < 16; j++) {
            int v = last;
            last = timesX(last); // the bit before
            for (int bit = 31; bit >= 0 && v != 0; bit--) {
                if ((v >>> bit & 1) == 0) {
                    continue;
                }
                if (basis[bit] == 0) {
                    basis[bit] = v;
                    break;
                }
                v ^= basis[bit];
            }
        }
        cachedLength[slot] = len;
        return basis;
    }

    /** CRC-32 of zero bytes up to and including the ID field, with ID bit {@code idBit} set (none if negative). */
    private int idFieldCrc(int idBit) {
        CRC32 c = crc;
        c.reset();
        c.update(zeros, 0, IPV4_ID_AT);
        int id = idBit < 0 ? 0 : 1 << idBit;
        c.update(id >>> 8);
        c.update(id & 0xFF);
        return (int) c.getValue();
    }

    /** @return a(x) * b(x) mod P, both bit-reflected */
    private static int multModP(int a, int b) {
        int product = 0;
        for (int m = ONE; m != 0; m >>>= 1) {
            if ((a & m) != 0) {
                product ^= b;
            }
            b = timesX(b);
        }
        return product;
    }

    /** @return b(x) * x mod P, bit-reflected */
    private static int timesX(int b) {
        return (b & 1) != 0 ? (b >>> 1) ^ POLY : b >>> 1;
    }

    /** @return x^(8 * n) mod P: what appending {@code n} zero bytes multiplies a CRC difference by */
    private int xPow8n(int n) {
        int p = ONE;
        for (int k = 3; n != 0; n >>>= 1, k++) {
            if ((n & 1) != 0) {
                p = multModP(xPow2k[k & 31], p);
            }
        }
        return p;
    }

    /**
     * @param datagram holds the UDP payload
     * @param off index of the BTH
     * @param len UDP payload length
     * @return the ICRC stored in the last four bytes
     */
    public static int stored(ByteBuffer datagram, int off, int len) {
        int i = off + len - RcOpcode.ICRC_BYTES;
        return (datagram.get(i) & 0xFF) | (datagram.get(i + 1) & 0xFF) << 8
                | (datagram.get(i + 2) & 0xFF) << 16 | (datagram.get(i + 3) & 0xFF) << 24;
    }

    /**
     * Writes an ICRC into the last four bytes, least significant byte first.
     *
     * @param datagram holds the UDP payload
     * @param off index of the BTH
     * @param len UDP payload length including the ICRC
     * @param icrc the value from {@link #compute}
     */
    public static void store(ByteBuffer datagram, int off, int len, int icrc) {
        int i = off + len - RcOpcode.ICRC_BYTES;
        datagram.put(i, (byte) icrc);
        datagram.put(i + 1, (byte) (icrc >>> 8));
        datagram.put(i + 2, (byte) (icrc >>> 16));
        datagram.put(i + 3, (byte) (icrc >>> 24));
    }

    private static void put16(byte[] h, int i, int v) {
        h[i] = (byte) (v >>> 8);
        h[i + 1] = (byte) v;
    }
}
