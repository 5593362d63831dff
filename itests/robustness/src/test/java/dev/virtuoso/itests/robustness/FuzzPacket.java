package dev.virtuoso.itests.robustness;

import java.util.Locale;
import java.util.SplittableRandom;

import dev.virtuoso.verbs.soft.packet.RcOpcode;

/**
 * One packet to throw at a soft RNIC, described relative to a live QP and registered region so that
 * a scenario stays meaningful across runs. Text form (one per line of a corpus file), every key
 * optional: {@code op=WRITE_FIRST qp=live psn=0 va=4000 rkey=good dma=2048 payload=1024 opbyte=-1
 * flip=-1 trunc=-1 icrc=good}. {@code psn} is an offset from the QP's expected start PSN, {@code va}
 * an offset from the region's start, {@code opbyte} overrides the opcode byte after building (an
 * invalid or mismatched opcode), {@code flip} XORs one byte before the ICRC is computed, {@code trunc}
 * keeps only that many bytes of the finished datagram, {@code icrc=bad} corrupts the ICRC.
 */
record FuzzPacket(int op, boolean unknownQp, int psnOffset, long vaOffset, boolean goodRkey, int dma,
        int payload, int opByte, int flip, int trunc, boolean goodIcrc) {

    /** @return true if the receiver must drop this packet before it can reach a QP */
    boolean certainGarbage() {
        return trunc >= 0 || !goodIcrc || unknownQp;
    }

    static FuzzPacket parse(String line) {
        int op = RcOpcode.WRITE_ONLY;
        boolean unknownQp = false;
        int psn = 0;
        long va = 0;
        boolean goodRkey = true;
        int dma = -1;
        int payload = 0;
        int opByte = -1;
        int flip = -1;
        int trunc = -1;
        boolean goodIcrc = true;
        for (String token : line.trim().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not key=value: " + token + " in " + line);
            }
            String k = token.substring(0, eq);
            String v = token.substring(eq + 1);
            switch (k) {
                case "op" -> op = opcode(v);
                case "qp" -> unknownQp = "unknown".equals(v);
                case "psn" -> psn = Integer.decode(v);
                case "va" -> va = Long.decode(v);
                case "rkey" -> goodRkey = "good".equals(v);
                case "dma" -> dma = Integer.decode(v);
                case "payload" -> payload = Integer.decode(v);
                case "opbyte" -> opByte = Integer.decode(v);
                case "flip" -> flip = Integer.decode(v);
                case "trunc" -> trunc = Integer.decode(v);
                case "icrc" -> goodIcrc = "good".equals(v);
                default -> throw new IllegalArgumentException("unknown key " + k + " in " + line);
            }
        }
        return new FuzzPacket(op, unknownQp, psn, va, goodRkey, dma < 0 ? payload : dma, payload, opByte,
                flip, trunc, goodIcrc);
    }

    private static int opcode(String v) {
        for (int op = 0; op <= RcOpcode.ACKNOWLEDGE; op++) {
            if (RcOpcode.flags(op) != 0 && (RcOpcode.name(op).equalsIgnoreCase(v)
                    || RcOpcode.name(op).equalsIgnoreCase("RDMA_" + v))) {
                return op;
            }
        }
        return Integer.decode(v);
    }

    /** A random packet: mostly near-valid (live QP, plausible PSN and region), one field broken at a time. */
    static FuzzPacket random(SplittableRandom r, int mtu, int regionBytes) {
        int op;
        do {
            op = r.nextInt(RcOpcode.ACKNOWLEDGE + 1);
        } while (RcOpcode.flags(op) == 0);
        int flags = RcOpcode.flags(op);
        int payload = (flags & RcOpcode.PAYLOAD) == 0 ? 0 : pick(r, 0, 1, 8, mtu, r.nextInt(0, mtu + 1));
        int psn = pick(r, 0, 1, -1, 1 << 22, -(1 << 22), r.nextInt(), r.nextInt(0, 64));
        long va = pick(r, 0L, -8L, regionBytes - 8L, (long) regionBytes, -4096L, (long) r.nextInt(0, regionBytes),
                r.nextLong() >> 8);
        int dma = pick(r, payload, payload + 1, 0, 2 * mtu, regionBytes, -1 >>> 1, r.nextInt());
        boolean goodRkey = r.nextInt(8) != 0;
        boolean unknownQp = r.nextInt(16) == 0;
        int opByte = r.nextInt(16) == 0 ? r.nextInt(256) : -1;
        int flip = r.nextInt(8) == 0 ? r.nextInt(0, 32) : -1;
        int trunc = r.nextInt(12) == 0 ? r.nextInt(1, 64) : -1;
        boolean goodIcrc = r.nextInt(16) != 0;
        return new FuzzPacket(op, unknownQp, psn, va, goodRkey, dma, payload, opByte, flip, trunc, goodIcrc);
    }

    @SafeVarargs
    private static <T> T pick(SplittableRandom r, T... choices) {
        return choices[r.nextInt(choices.length)];
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "op=%s qp=%s psn=%d va=%d rkey=%s dma=%d payload=%d opbyte=%d flip=%d "
                + "trunc=%d icrc=%s", RcOpcode.name(op), unknownQp ? "unknown" : "live", psnOffset, vaOffset,
                goodRkey ? "good" : "bad", dma, payload, opByte, flip, trunc, goodIcrc ? "good" : "bad");
    }
}
