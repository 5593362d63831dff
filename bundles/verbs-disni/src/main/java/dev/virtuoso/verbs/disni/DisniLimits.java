package dev.virtuoso.verbs.disni;

/** Limits fixed by libdisni 2.1's native code. */
final class DisniLimits {
    /** libdisni 2.1 creates every QP with {@code max_send_sge = max_recv_sge = 4} (MAX_SGE). */
    static final int MAX_SGE = 4;

    private DisniLimits() {
    }
}
