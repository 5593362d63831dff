package dev.virtuoso.api;

/** Health of one path. */
public enum PathState {
    /** QP in RTS, carrying chunks. */
    UP,
    /** QP failed; the path left the placement and is being re-created in the background. */
    RECOVERING,
    /** Administratively disabled or removed. */
    DOWN
}
