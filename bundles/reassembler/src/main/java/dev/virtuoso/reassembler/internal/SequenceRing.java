package dev.virtuoso.reassembler.internal;

/**
 * The growth step of the reassembly's rings, whose entry for sequence {@code q} sits at
 * {@code q mod length}: a longer array gets the live entries at their new places.
 */
final class SequenceRing {
    private SequenceRing() {
    }

    /**
     * Copies the entries of sequences {@code from..to-1} of {@code old} to their indexes in
     * {@code grown} (engine thread; allocation-free, only while a ring grows).
     *
     * @param old an array of any element type ({@code null} when nothing is live)
     * @param grown a longer array of the same type
     * @return {@code grown}
     */
    static <A> A regrow(A old, A grown, long from, long to) {
        if (from >= to) {
            return grown;
        }
        int oldLength = java.lang.reflect.Array.getLength(old);
        int newLength = java.lang.reflect.Array.getLength(grown);
        for (long q = from; q < to; q++) {
            System.arraycopy(old, (int) Long.remainderUnsigned(q, oldLength), grown,
                    (int) Long.remainderUnsigned(q, newLength), 1);
        }
        return grown;
    }
}
