package dev.virtuoso.verbs.ibv.conformance;

import dev.virtuoso.verbs.conformance.TransferConformance;
import dev.virtuoso.verbs.conformance.ConformanceEnvironment;

/** {@link TransferConformance} through libibverbs (see {@link IbvConformanceEnvironment}). */
class IbvTransferConformanceTest extends TransferConformance {
    @Override
    protected ConformanceEnvironment createEnvironment() throws Exception {
        return IbvConformanceEnvironment.create();
    }
}
