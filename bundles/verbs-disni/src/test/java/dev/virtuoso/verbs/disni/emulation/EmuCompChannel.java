package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;

/** TESTS ONLY: DiSNI's CompChannel object of the emulation. */
final class EmuCompChannel extends IbvCompChannel {
    final dev.virtuoso.spi.verbs.IbvCompChannel spi;

    EmuCompChannel(IbvContext context, dev.virtuoso.spi.verbs.IbvCompChannel spi) throws IOException {
        super(-1, context);
        this.spi = spi;
    }
}
