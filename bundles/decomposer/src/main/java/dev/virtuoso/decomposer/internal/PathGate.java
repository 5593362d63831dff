package dev.virtuoso.decomposer.internal;

/** Whether a path may take another chunk now (usable and below its window). */
interface PathGate {

    /** @return number of path slots */
    int pathCount();

    /**
     * @param path path slot
     * @return true if a chunk posted there now would be accepted
     */
    boolean open(int path);
}
