package dev.virtuoso.qpmanager.internal.bootstrap;

import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.address;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.bytes;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.end;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.range;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.u24;
import static dev.virtuoso.qpmanager.internal.bootstrap.Fields.u8;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.reassembler.ReassemblyConfig;

/** Bodies of the handshake frames, each with a length-checked decoder. */
public final class HandshakeMessages {
    /** Most MP_RECVs a peer may announce it holds at once. */
    static final int MAX_RECEIVES = 1 << 20;
    /** Most small-message slots a peer may announce. */
    static final int MAX_SLOTS = 1 << 16;
    /** Largest slot a peer may announce. */
    static final int MAX_SLOT_BYTES = 1 << 20;
    /** Largest probe scratch region a peer may announce. */
    public static final int MAX_SCRATCH_BYTES = 1 << 20;

    private HandshakeMessages() {
    }

    /** HELLO: the client's nonce and whether it holds a shared secret. */
    public record Hello(byte[] nonce, boolean hasSecret) {
        public void encode(ByteBuffer out) {
            out.put(nonce).put((byte) (hasSecret ? 1 : 0));
        }

        public static Hello decode(ByteBuffer in) throws ProtocolException {
            byte[] nonce = bytes(in, Protocol.NONCE_BYTES);
            boolean secret = flag(in);
            end(in, "HELLO");
            return new Hello(nonce, secret);
        }
    }

    /**
     * CHALLENGE: the server's nonce, whether it requires authentication (then with its proof), and
     * its vNIC addresses.
     */
    public record Challenge(byte[] nonce, byte[] mac, List<InetAddress> vnics) {
        public boolean authRequired() {
            return mac != null;
        }

        public void encode(ByteBuffer out) {
            out.put(nonce).put((byte) (mac != null ? 1 : 0));
            if (mac != null) {
                out.put(mac);
            }
            out.put((byte) vnics.size());
            for (InetAddress a : vnics) {
                address(out, a);
            }
        }

        public static Challenge decode(ByteBuffer in) throws ProtocolException {
            byte[] nonce = bytes(in, Protocol.NONCE_BYTES);
            byte[] mac = flag(in) ? bytes(in, Protocol.MAC_BYTES) : null;
            int n = count(in, 0, "vNIC");
            List<InetAddress> vnics = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                vnics.add(address(in));
            }
            end(in, "CHALLENGE");
            return new Challenge(nonce, mac, List.copyOf(vnics));
        }
    }

    /**
     * A side's probe scratch region: where the peer's path monitor may RDMA WRITE capacity probes.
     * Its content is never read. {@code length == 0} (with address and rkey 0) means none.
     */
    public record ScratchRegion(long address, int rkey, int length) {
        /** No scratch region: the peer does not probe this side. */
        public static final ScratchRegion NONE = new ScratchRegion(0, 0, 0);

        public void encode(ByteBuffer out) {
            out.putLong(address).putInt(rkey).putInt(length);
        }

        /**
         * @throws ProtocolException if the length exceeds {@link #MAX_SCRATCH_BYTES}, the range
         *     wraps around the address space, or an empty region carries an address or key
         */
        public static ScratchRegion decode(ByteBuffer in) throws ProtocolException {
            Fields.need(in, 16);
            long address = in.getLong();
            int rkey = in.getInt();
            int length = in.getInt();
            if (length < 0 || length > MAX_SCRATCH_BYTES) {
                throw new ProtocolException("scratch length out of range [0, " + MAX_SCRATCH_BYTES + "]: " + length);
            }
            if (length == 0) {
                if (address != 0 || rkey != 0) {
                    throw new ProtocolException("empty scratch region with an address or key");
                }
                return NONE;
            }
            if (Long.compareUnsigned(address, -1L - length) > 0) {
                throw new ProtocolException("scratch region wraps the address space: " + Long.toUnsignedString(address)
                        + " + " + length);
            }
            return new ScratchRegion(address, rkey, length);
        }
    }

    /**
     * What the reassembler of one side needs to know of the other, the side's MTU, and its probe
     * scratch region.
     */
    public record ReceiveParams(int maxReceives, int slots, int slotBytes, int mtu, ScratchRegion scratch) {
        public ReceiveParams {
            if (scratch == null) {
                scratch = ScratchRegion.NONE;
            }
        }

        public ReceiveParams(int maxReceives, int slots, int slotBytes, int mtu) {
            this(maxReceives, slots, slotBytes, mtu, ScratchRegion.NONE);
        }

        /** @return the same parameters with a scratch region */
        public ReceiveParams withScratch(ScratchRegion s) {
            return new ReceiveParams(maxReceives, slots, slotBytes, mtu, s);
        }

        public void encode(ByteBuffer out) {
            out.putInt(maxReceives).putInt(slots).putInt(slotBytes).putInt(mtu);
            scratch.encode(out);
        }

        public static ReceiveParams decode(ByteBuffer in) throws ProtocolException {
            int maxReceives = range(in, "maxReceives", 1, MAX_RECEIVES);
            // the fewest and smallest slots the reassembly's control messages need
            int slots = range(in, "slots", ReassemblyConfig.MIN_SLOTS, MAX_SLOTS);
            int slotBytes = range(in, "slotBytes", ReassemblyConfig.MIN_SLOT_BYTES, MAX_SLOT_BYTES);
            int mtu = range(in, "mtu", 256, 4096);
            if (Integer.bitCount(mtu) != 1) {
                throw new ProtocolException("mtu must be a power of two: " + mtu);
            }
            return new ReceiveParams(maxReceives, slots, slotBytes, mtu, ScratchRegion.decode(in));
        }
    }

    /** One path as the client offers it: both vNICs and its QP's attributes. */
    public record PathOffer(InetAddress local, InetAddress remote, int udpPort, int qpn, int psn) {
        public void encode(ByteBuffer out) {
            address(out, local);
            address(out, remote);
            out.putInt(udpPort).putInt(qpn).putInt(psn);
        }

        public static PathOffer decode(ByteBuffer in) throws ProtocolException {
            InetAddress local = address(in);
            InetAddress remote = address(in);
            int port = range(in, "udpPort", 1, 65535);
            return new PathOffer(local, remote, port, u24(in, "qpn"), u24(in, "psn"));
        }
    }

    /** One path as the server answers: its QP's attributes. */
    public record PathAnswer(int udpPort, int qpn, int psn) {
        public void encode(ByteBuffer out) {
            out.putInt(udpPort).putInt(qpn).putInt(psn);
        }

        public static PathAnswer decode(ByteBuffer in) throws ProtocolException {
            int port = range(in, "udpPort", 1, 65535);
            return new PathAnswer(port, u24(in, "qpn"), u24(in, "psn"));
        }
    }

    /** CONNECT: the client's proof (if authenticating), its parameters and every path. */
    public record Connect(byte[] mac, ReceiveParams params, List<PathOffer> paths) {
        public void encode(ByteBuffer out) {
            out.put((byte) (mac != null ? 1 : 0));
            if (mac != null) {
                out.put(mac);
            }
            params.encode(out);
            out.put((byte) paths.size());
            for (PathOffer p : paths) {
                p.encode(out);
            }
        }

        public static Connect decode(ByteBuffer in) throws ProtocolException {
            byte[] mac = flag(in) ? bytes(in, Protocol.MAC_BYTES) : null;
            ReceiveParams params = ReceiveParams.decode(in);
            int n = count(in, 1, "path");
            List<PathOffer> paths = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                paths.add(PathOffer.decode(in));
            }
            end(in, "CONNECT");
            return new Connect(mac, params, List.copyOf(paths));
        }
    }

    /** ACCEPT: the server's parameters and one answer per offered path, in order. */
    public record Accept(ReceiveParams params, List<PathAnswer> paths) {
        public void encode(ByteBuffer out) {
            params.encode(out);
            out.put((byte) paths.size());
            for (PathAnswer p : paths) {
                p.encode(out);
            }
        }

        public static Accept decode(ByteBuffer in) throws ProtocolException {
            ReceiveParams params = ReceiveParams.decode(in);
            int n = count(in, 1, "path");
            List<PathAnswer> paths = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                paths.add(PathAnswer.decode(in));
            }
            end(in, "ACCEPT");
            return new Accept(params, List.copyOf(paths));
        }
    }

    private static boolean flag(ByteBuffer in) throws ProtocolException {
        int f = u8(in);
        if (f > 1) {
            throw new ProtocolException("flag must be 0 or 1: " + f);
        }
        return f == 1;
    }

    private static int count(ByteBuffer in, int min, String what) throws ProtocolException {
        int n = u8(in);
        if (n < min || n > Protocol.MAX_PATHS) {
            throw new ProtocolException(what + " count out of range [" + min + ", " + Protocol.MAX_PATHS + "]: " + n);
        }
        return n;
    }
}
