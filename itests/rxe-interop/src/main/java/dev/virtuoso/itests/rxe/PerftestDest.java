package dev.virtuoso.itests.rxe;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One side's QP description in perftest's TCP exchange ({@code struct pingpong_dest}), as the
 * fixed-size text record perftest writes with {@code KEY_PRINT_FMT_GID}
 * ({@code "%04x:%04x:%06x:%06x:%08x:%016llx:" + 16 x "%02x:" + "%08x:"}, NUL-terminated, 108
 * bytes): LID, outstanding reads, QPN, PSN, rkey, virtual address, GID, SRQ number. RoCE always
 * uses the GID form.
 *
 * @param lid local identifier (0 on RoCE)
 * @param outReads RDMA READs this side lets the peer have outstanding towards it
 * @param qpn 24-bit QP number
 * @param psn 24-bit initial PSN this side sends with
 * @param rkey remote key of the buffer the peer may access
 * @param vaddr virtual address of that buffer
 * @param gid 16-byte GID (RoCEv2: IPv4-mapped IPv6 address)
 * @param srqn SRQ number (0 without XRC)
 */
public record PerftestDest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid,
        int srqn) {

    /** Size of the record on the wire, including the terminating NUL. */
    public static final int MESSAGE_SIZE = 108;

    /** Validates field ranges and copies the GID. */
    public PerftestDest {
        if (gid == null || gid.length != 16) {
            throw new IllegalArgumentException("GID must be 16 bytes");
        }
        if ((qpn & ~0xFFFFFF) != 0 || (psn & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("QPN and PSN are 24 bits: " + qpn + ", " + psn);
        }
        gid = gid.clone();
    }

    /** @return a copy of the GID */
    @Override
    public byte[] gid() {
        return gid.clone();
    }

    /**
     * @param address an IPv4 address
     * @return its RoCEv2 GID, the IPv4-mapped IPv6 address {@code ::ffff:a.b.c.d}
     */
    public static byte[] gidOf(InetAddress address) {
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("IPv4 only: " + address);
        }
        byte[] g = new byte[16];
        g[10] = (byte) 0xFF;
        g[11] = (byte) 0xFF;
        System.arraycopy(address.getAddress(), 0, g, 12, 4);
        return g;
    }

    /** @return the IPv4 address in an IPv4-mapped GID */
    public InetAddress gidAddress() {
        for (int i = 0; i < 10; i++) {
            if (gid[i] != 0) {
                throw new IllegalStateException("not an IPv4-mapped GID: " + hexGid());
            }
        }
        if (gid[10] != (byte) 0xFF || gid[11] != (byte) 0xFF) {
            throw new IllegalStateException("not an IPv4-mapped GID: " + hexGid());
        }
        try {
            return InetAddress.getByAddress(Arrays.copyOfRange(gid, 12, 16));
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the 108-byte record */
    public byte[] encode() {
        StringBuilder s = new StringBuilder(MESSAGE_SIZE);
        s.append(String.format("%04x:%04x:%06x:%06x:%08x:%016x:", lid, outReads, qpn, psn, rkey, vaddr));
        for (byte b : gid) {
            s.append(String.format("%02x:", b & 0xFF));
        }
        s.append(String.format("%08x:", srqn));
        byte[] text = s.toString().getBytes(StandardCharsets.US_ASCII);
        if (text.length != MESSAGE_SIZE - 1) {
            throw new IllegalStateException("record is " + text.length + " characters: " + s);
        }
        return Arrays.copyOf(text, MESSAGE_SIZE);
    }

    /**
     * Parses a record the way perftest does (colon-separated hexadecimal fields).
     *
     * @param message exactly {@link #MESSAGE_SIZE} bytes
     * @return the parsed record
     * @throws IllegalArgumentException if the message is malformed
     */
    public static PerftestDest decode(byte[] message) {
        if (message.length != MESSAGE_SIZE) {
            throw new IllegalArgumentException("record must be " + MESSAGE_SIZE + " bytes: " + message.length);
        }
        int end = 0;
        while (end < message.length && message[end] != 0) {
            end++;
        }
        String[] f = new String(message, 0, end, StandardCharsets.US_ASCII).split(":");
        if (f.length != 23) {
            throw new IllegalArgumentException("record has " + f.length + " fields, want 23: "
                    + new String(message, 0, end, StandardCharsets.US_ASCII));
        }
        try {
            byte[] gid = new byte[16];
            for (int i = 0; i < 16; i++) {
                gid[i] = (byte) Integer.parseInt(f[6 + i], 16);
            }
            return new PerftestDest(Integer.parseInt(f[0], 16), Integer.parseInt(f[1], 16),
                    Integer.parseInt(f[2], 16), Integer.parseInt(f[3], 16),
                    Integer.parseUnsignedInt(f[4], 16), Long.parseUnsignedLong(f[5], 16), gid,
                    Integer.parseUnsignedInt(f[22], 16));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad hexadecimal field in record", e);
        }
    }

    private String hexGid() {
        StringBuilder s = new StringBuilder();
        for (byte b : gid) {
            s.append(String.format("%02x", b & 0xFF));
        }
        return s.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PerftestDest d && lid == d.lid && outReads == d.outReads && qpn == d.qpn
                && psn == d.psn && rkey == d.rkey && vaddr == d.vaddr && srqn == d.srqn
                && Arrays.equals(gid, d.gid);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(vaddr) * 31 + qpn * 17 + Arrays.hashCode(gid);
    }

    @Override
    public String toString() {
        return String.format("QPN 0x%06x PSN 0x%06x RKey 0x%08x VAddr 0x%016x OUT %d GID %s", qpn, psn,
                rkey, vaddr, outReads, hexGid());
    }
}
