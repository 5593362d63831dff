package dev.virtuoso.decomposer;

import dev.virtuoso.spi.policy.PathStateView;

/**
 * What a decomposition is connected to.
 *
 * @param paths the core-side path state; the decomposition updates its counters
 * @param transport posts chunk work requests on the paths' QPs
 * @param sink receives one completion per MP work request
 * @param observer told about every data chunk posted and completed (e.g. a path monitor), or
 *     {@code null}
 * @param policyView the view the policy sessions read and whose {@code usable} gates placement;
 *     {@code null} means {@code paths}
 */
public record DecompositionWiring(PathTable paths, ChunkTransport transport,
        MessageCompletionSink sink, ChunkObserver observer, PathStateView policyView) {

    public DecompositionWiring {
        if (paths == null || transport == null || sink == null) {
            throw new IllegalArgumentException("paths, transport and sink are required");
        }
        if (policyView == null) {
            policyView = paths;
        }
    }
}
