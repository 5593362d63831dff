package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import com.ibm.disni.verbs.IbvContext;

/** DiSNI context of an emulated device. */
final class EmuContext extends IbvContext {
    final dev.virtuoso.spi.verbs.IbvContext spi;

    EmuContext(dev.virtuoso.spi.verbs.IbvContext spi) throws IOException {
        super(-1, 1);
        this.spi = spi;
    }
}
