package dev.virtuoso.pathmonitor.api;

/** The monitor's verdict on a path. Only {@link #HEALTHY} paths are usable for new chunks. */
public enum PathHealth {
    /** Up and making progress. */
    HEALTHY,
    /** Up, but chunks are in flight and nothing completed for longer than the stall timeout. */
    STALLED,
    /** Up, but too many consecutive errors; paused until the error cooldown has passed. */
    ERRORS,
    /**
     * The core reported the path RECOVERING (QP failed, being re-created), or reported it UP again
     * and it is on probation until a probe flow on it succeeded (failback).
     */
    RECOVERING,
    /** The core reported the path DOWN (removed or administratively disabled), or never added. */
    DOWN
}
