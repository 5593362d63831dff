package dev.virtuoso.verbs.soft.rnic;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An int-keyed open-addressing map for one writer at a time (its owner thread, or callers holding
 * the owner's lock) and any number of readers that take no lock and allocate nothing.
 *
 * <p>Updates are O(1) amortized (the copy-on-write table before made every registration copy every
 * region: quadratic in the regions of a device, a quarter of a connection set-up's CPU on the
 * accepting side at 256 connections). A slot, once given a key, keeps it until the next rebuild: a
 * removal leaves a tombstone that lookups step over, so a reader that raced a removal and a new
 * insertion can never pair one entry's value with another's key. A rebuild (when live entries and
 * tombstones would fill half the slots) copies the live entries into fresh arrays and publishes them
 * through a volatile field.
 *
 * @param <T> value type
 */
final class IntMap<T> {
    private static final VarHandle VALUE = MethodHandles.arrayElementVarHandle(Object[].class);
    private static final Object REMOVED = new Object();
    private static final int MIN_SLOTS = 8;

    /** Keys and values of one generation of the table; a new one on every rebuild. */
    private static final class Slots {
        final int[] keys;
        /** null = never used, REMOVED = tombstone; written with release, read with acquire. */
        final Object[] values;

        Slots(int n) {
            keys = new int[n];
            values = new Object[n];
        }
    }

    private volatile Slots slots = new Slots(MIN_SLOTS);
    /** Writer only: live entries, and live entries plus tombstones. */
    private int size;
    private int used;

    private static int home(int key, int mask) {
        int h = key * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /** @return the value for {@code key}, or null (any thread) */
    @SuppressWarnings("unchecked")
    T get(int key) {
        Slots s = slots;
        int mask = s.keys.length - 1;
        for (int i = home(key, mask);; i = (i + 1) & mask) {
            Object v = VALUE.getAcquire(s.values, i);
            if (v == null) {
                return null;
            }
            if (v != REMOVED && s.keys[i] == key) {
                return (T) v;
            }
        }
    }

    boolean containsKey(int key) {
        return get(key) != null;
    }

    /** @return live entries (writer's view) */
    int size() {
        return size;
    }

    /** Maps {@code key} to {@code value}, replacing any old value (writer only). */
    void put(int key, T value) {
        if (value == null) {
            throw new IllegalArgumentException("null value");
        }
        Slots s = slots;
        int mask = s.keys.length - 1;
        int i = home(key, mask);
        for (Object v; (v = s.values[i]) != null; i = (i + 1) & mask) {
            if (v != REMOVED && s.keys[i] == key) {
                VALUE.setRelease(s.values, i, value);
                return;
            }
        }
        if ((used + 1) * 2 > s.keys.length) {
            rebuild(size + 1);
            put(key, value);
            return;
        }
        s.keys[i] = key;
        VALUE.setRelease(s.values, i, value);
        size++;
        used++;
    }

    /** @return the value removed, or null if {@code key} had none (writer only) */
    @SuppressWarnings("unchecked")
    T remove(int key) {
        Slots s = slots;
        int mask = s.keys.length - 1;
        for (int i = home(key, mask);; i = (i + 1) & mask) {
            Object v = s.values[i];
            if (v == null) {
                return null;
            }
            if (v != REMOVED && s.keys[i] == key) {
                VALUE.setRelease(s.values, i, REMOVED);
                size--;
                return (T) v;
            }
        }
    }

    /** Fresh arrays holding the live entries at most a quarter full; published once filled. */
    private void rebuild(int entries) {
        int n = MIN_SLOTS;
        while (n < entries * 4) {
            n <<= 1;
        }
        Slots old = slots;
        Slots fresh = new Slots(n);
        int mask = n - 1;
        for (int j = 0; j < old.keys.length; j++) {
            Object v = old.values[j];
            if (v != null && v != REMOVED) {
                int i = home(old.keys[j], mask);
                while (fresh.values[i] != null) {
                    i = (i + 1) & mask;
                }
                fresh.keys[i] = old.keys[j];
                fresh.values[i] = v;
            }
        }
        used = size;
        slots = fresh;
    }

    /** @return the number of slots, for iteration with {@link #valueAt} (any thread: a snapshot) */
    int slots() {
        return slots.keys.length;
    }

    /**
     * Any thread; iterate from 0 to a {@link #slots()} taken before, tolerating a rebuild between
     * calls (a value may then be seen twice or missed, as with any lock-free iteration).
     *
     * @return the value in slot {@code i} of the current table, or null (empty, removed or out of range)
     */
    @SuppressWarnings("unchecked")
    T valueAt(int i) {
        Slots s = slots;
        if (i < 0 || i >= s.values.length) {
            return null;
        }
        Object v = VALUE.getAcquire(s.values, i);
        return v == REMOVED ? null : (T) v;
    }
}
