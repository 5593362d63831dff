package dev.virtuoso.verbs.soft.rnic;

import java.util.ArrayList;
import java.util.List;

/**
 * An immutable int-keyed open-addressing map: lookups allocate nothing and need no lock; updates
 * build a new table (control plane only), which is published through a volatile field by its owner.
 *
 * @param <T> value type
 */
final class IntTable<T> {
    private static final IntTable<Object> EMPTY = new IntTable<>(new int[4], new Object[4], 0);

    private final int[] keys;
    private final Object[] values;
    private final int size;

    private IntTable(int[] keys, Object[] values, int size) {
        this.keys = keys;
        this.values = values;
        this.size = size;
    }

    @SuppressWarnings("unchecked")
    static <T> IntTable<T> empty() {
        return (IntTable<T>) EMPTY;
    }

    private static int slot(int key, int mask) {
        int h = key * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /** @return the value for {@code key}, or null */
    @SuppressWarnings("unchecked")
    T get(int key) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (true) {
            Object v = values[i];
            if (v == null) {
                return null;
            }
            if (keys[i] == key) {
                return (T) v;
            }
            i = (i + 1) & mask;
        }
    }

    boolean containsKey(int key) {
        return get(key) != null;
    }

    int size() {
        return size;
    }

    /** @return a table that also maps {@code key} to {@code value} (replacing any old value) */
    IntTable<T> with(int key, T value) {
        if (value == null) {
            throw new IllegalArgumentException("null value");
        }
        int n = size + (containsKey(key) ? 0 : 1);
        IntTable<T> t = allocate(n);
        for (int i = 0; i < keys.length; i++) {
            if (values[i] != null && keys[i] != key) {
                t.put(keys[i], values[i]);
            }
        }
        t.put(key, value);
        return t;
    }

    /** @return a table without {@code key} */
    IntTable<T> without(int key) {
        if (!containsKey(key)) {
            return this;
        }
        IntTable<T> t = allocate(size - 1);
        for (int i = 0; i < keys.length; i++) {
            if (values[i] != null && keys[i] != key) {
                t.put(keys[i], values[i]);
            }
        }
        return t;
    }

    /** @return the number of slots, for iteration with {@link #valueAt} */
    int slots() {
        return values.length;
    }

    /** @return the value in slot {@code i}, or null for an empty slot */
    @SuppressWarnings("unchecked")
    T valueAt(int i) {
        return (T) values[i];
    }

    /** @return the values, in table order (a new list) */
    @SuppressWarnings("unchecked")
    List<T> values() {
        List<T> out = new ArrayList<>(size);
        for (Object v : values) {
            if (v != null) {
                out.add((T) v);
            }
        }
        return out;
    }

    private IntTable<T> allocate(int entries) {
        int cap = 4;
        while (cap < entries * 2 + 2) {
            cap <<= 1;
        }
        return new IntTable<>(new int[cap], new Object[cap], entries);
    }

    private void put(int key, Object value) {
        int mask = keys.length - 1;
        int i = slot(key, mask);
        while (values[i] != null) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
    }
}
