package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.api.PathState;

/**
 * What the path manager tells the path monitor glue, on the engine thread, each time before the
 * policy sessions hear {@code onPathsChanged()}.
 */
interface PathEvents {

    /**
     * @param path a slot just added: a new slot (in increasing order) or the released slot of a
     *     removed path, reused
     */
    void pathAdded(int path);

    /**
     * @param path path slot
     * @param state its new QP-level state: RECOVERING (QP failed), UP (re-created QP connected),
     *     DOWN (removed)
     */
    void pathState(int path, PathState state);

    /** @param path a slot whose QP is being destroyed: its outstanding probe WRs will never complete */
    void pathAbandoned(int path);

    /** Does nothing: used until the glue is attached. */
    PathEvents NONE = new PathEvents() {
        @Override
        public void pathAdded(int path) {
        }

        @Override
        public void pathState(int path, PathState state) {
        }

        @Override
        public void pathAbandoned(int path) {
        }
    };
}
