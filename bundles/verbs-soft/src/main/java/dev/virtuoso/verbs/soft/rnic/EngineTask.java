package dev.virtuoso.verbs.soft.rnic;

import dev.virtuoso.spi.verbs.VerbsException;

/**
 * A control operation run on the device's engine thread, which owns all QP state.
 *
 * @param <T> result type
 */
@FunctionalInterface
interface EngineTask<T> {
    T run(Engine engine) throws VerbsException;
}
