package dev.virtuoso.api;

/** Access rights of a registered region. */
public enum Access {
    /** The local side may write the region (receives, READ results). */
    LOCAL_WRITE,
    /** The peer may MP_WRITE into it (implies {@link #LOCAL_WRITE}). */
    REMOTE_WRITE,
    /** The peer may MP_READ from it. */
    REMOTE_READ
}
