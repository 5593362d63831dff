package dev.virtuoso.verbs.ibv;

import dev.virtuoso.spi.verbs.VerbsException;
import java.util.ArrayList;
import java.util.List;

/**
 * The native objects a context or PD created and must destroy before itself: adopts each new one,
 * refuses (and closes) one created after close, and closes them type by type in dependency order.
 */
final class OwnedObjects {
    private final int closedErrno;
    private final String closedMessage;
    private final List<AutoCloseable> open = new ArrayList<>();
    private boolean closed;

    OwnedObjects(int closedErrno, String closedMessage) {
        this.closedErrno = closedErrno;
        this.closedMessage = closedMessage;
    }

    synchronized <T extends AutoCloseable> T adopt(T child) throws VerbsException {
        if (closed) {
            closeQuietly(child);
            throw new VerbsException(closedErrno, closedMessage);
        }
        open.add(child);
        return child;
    }

    /** Closes every child, all of the first type first, and so on; false if already closed (idempotent). */
    boolean closeAll(List<Class<?>> order) {
        List<AutoCloseable> all;
        synchronized (this) {
            if (closed) {
                return false;
            }
            closed = true;
            all = new ArrayList<>(open);
            open.clear();
        }
        for (Class<?> type : order) {
            for (AutoCloseable c : all) {
                if (type.isInstance(c)) {
                    closeQuietly(c);
                }
            }
        }
        return true;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception e) {
            // keep closing the rest; close() of these types throws nothing checked
        }
    }
}
