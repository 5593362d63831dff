package dev.virtuoso.verbs.soft.fabric;

/** An invalid fabric spec text; the message names the statement and what is wrong with it. */
public final class FabricSpecException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    FabricSpecException(String message, Throwable cause) {
        super(message, cause);
    }
}
