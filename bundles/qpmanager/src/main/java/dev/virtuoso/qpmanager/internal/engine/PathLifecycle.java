package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.api.PathState;
import dev.virtuoso.decomposer.PathTable;

/**
 * The lifecycle of a connection's paths: the one writer of their state in the {@link PathTable}
 * (which everyone else only reads), with explicit transitions, telling its listener of each change
 * on the engine thread. Engine thread only.
 *
 * <pre>
 *   (added) ──► UP ──fail──► RECOVERING ──repaired──► UP
 *               UP, RECOVERING ──remove──► DOWN
 *               any ──closeAll──► DOWN   (teardown: nobody is told)
 * </pre>
 * A slot enters UP when the path table adds it and leaves DOWN when the table releases it. Any other
 * transition is a bug in the core and throws {@link IllegalStateException}.
 */
final class PathLifecycle {
    private static final System.Logger LOG = System.getLogger(PathLifecycle.class.getName());
    private final PathTable table;
    private PathEvents listener = PathEvents.NONE;

    PathLifecycle(PathTable table) {
        this.table = table;
    }

    /** @param l told of every state change (the path monitor glue), before the policies hear of it */
    void listener(PathEvents l) {
        listener = l;
    }

    PathState state(int path) {
        return table.state(path);
    }

    /**
     * The path's QP failed (a completion, a post or a probe showed it in error) or the peer is
     * re-creating it: UP → RECOVERING.
     *
     * @return false, changing nothing, if the path was not UP (it failed already or is going away)
     */
    boolean fail(int path) {
        if (table.state(path) != PathState.UP) {
            return false;
        }
        set(path, PathState.RECOVERING);
        return true;
    }

    /** The path's QP was re-created and connected: RECOVERING → UP. */
    void repaired(int path) {
        PathState s = table.state(path);
        if (s != PathState.RECOVERING) {
            throw new IllegalStateException("path " + path + " repaired while " + s);
        }
        set(path, PathState.UP);
    }

    /** The path is being removed (by either side): UP or RECOVERING → DOWN. */
    void remove(int path) {
        PathState s = table.state(path);
        if (s == PathState.DOWN) {
            throw new IllegalStateException("path " + path + " removed twice");
        }
        set(path, PathState.DOWN);
    }

    /** The connection ends: every path DOWN, without telling the listener (it is being closed too). */
    void closeAll() {
        for (int p = 0; p < table.pathCount(); p++) {
            table.state(p, PathState.DOWN);
        }
    }

    private void set(int path, PathState s) {
        LOG.log(System.Logger.Level.DEBUG, () -> "path " + path + ": " + table.state(path) + " -> " + s);
        table.state(path, s);
        listener.pathState(path, s);
    }
}
