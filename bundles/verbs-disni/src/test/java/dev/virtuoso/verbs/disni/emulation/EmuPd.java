package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvPd;

/** TESTS ONLY: DiSNI's Pd object of the emulation. */
final class EmuPd extends IbvPd {
    final dev.virtuoso.spi.verbs.IbvPd spi;

    EmuPd(IbvContext context, dev.virtuoso.spi.verbs.IbvPd spi) throws IOException {
        super(context);
        this.spi = spi;
    }
}
