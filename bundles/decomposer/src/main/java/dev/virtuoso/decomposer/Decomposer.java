package dev.virtuoso.decomposer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Factory of per-connection decompositions, published as an OSGi service by the decomposer
 * bundle. Thread-safe.
 */
@ProviderType
public interface Decomposer {

    /**
     * Creates the decomposition state of one connection.
     *
     * @param config sizes and limits
     * @param wiring the connection's path table, transport, completion sink and optional observer
     * @return a new decomposition, owned and closed by the caller's engine thread
     */
    Decomposition newDecomposition(DecompositionConfig config, DecompositionWiring wiring);
}
