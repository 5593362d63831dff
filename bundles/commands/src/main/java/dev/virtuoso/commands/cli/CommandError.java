package dev.virtuoso.commands.cli;

/**
 * A command's refusal that the user can act on (bad argument, unknown connection, nothing running).
 * Gogo shells print a failed command's exception with {@code toString()}; this one prints only its
 * message, so the shell shows no Java class names. The launcher treats it as a usage error.
 */
public final class CommandError extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and, where possible, what to do */
    public CommandError(String message) {
        super(message);
    }

    @Override
    public String toString() {
        return getMessage();
    }
}
