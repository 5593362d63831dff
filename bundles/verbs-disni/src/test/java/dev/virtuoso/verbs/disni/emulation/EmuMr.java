package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;

/** TESTS ONLY: DiSNI's Mr object of the emulation. */
final class EmuMr extends IbvMr {
    final dev.virtuoso.spi.verbs.IbvMr spi;

    EmuMr(IbvContext context, dev.virtuoso.spi.verbs.IbvMr spi, int access) throws IOException {
        super(context, spi.address(), spi.length(), access, spi.lkey(), spi.rkey(), 0);
        this.spi = spi;
    }
}
