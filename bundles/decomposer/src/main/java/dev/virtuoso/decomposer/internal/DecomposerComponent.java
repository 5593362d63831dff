package dev.virtuoso.decomposer.internal;

import org.osgi.service.component.annotations.Component;

import dev.virtuoso.decomposer.Decomposer;
import dev.virtuoso.decomposer.Decomposition;
import dev.virtuoso.decomposer.DecompositionConfig;
import dev.virtuoso.decomposer.DecompositionWiring;

/** The decomposer service. Stateless: each connection's state lives in its decomposition. */
@Component(service = Decomposer.class)
public final class DecomposerComponent implements Decomposer {

    @Override
    public Decomposition newDecomposition(DecompositionConfig config, DecompositionWiring wiring) {
        return new DefaultDecomposition(config, wiring);
    }
}
