package dev.virtuoso.verbs.disni.emulation;

import java.io.IOException;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvCompChannel;
import com.ibm.disni.verbs.IbvContext;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvQP;

import dev.virtuoso.spi.verbs.VerbsException;

/** TESTS ONLY: DiSNI's verbs objects, each holding the SPI object it stands for. */
final class EmuObjects {
    private EmuObjects() {
    }

    /** libibverbs' strerror texts, which libdisni puts in its exception messages. */
    static String strerror(int errno) {
        return switch (errno) {
            case VerbsException.EPERM -> "Operation not permitted";
            case VerbsException.EIO -> "Input/output error";
            case VerbsException.EAGAIN -> "Resource temporarily unavailable";
            case VerbsException.ENOMEM -> "Cannot allocate memory";
            case VerbsException.EFAULT -> "Bad address";
            case VerbsException.EBUSY -> "Device or resource busy";
            case VerbsException.ENODEV -> "No such device";
            case VerbsException.EINVAL -> "Invalid argument";
            case VerbsException.EOPNOTSUPP -> "Operation not supported";
            case VerbsException.ETIMEDOUT -> "Connection timed out";
            default -> "Unknown error " + errno;
        };
    }

    static IOException libdisni(String call, String verb, VerbsException e) {
        return new IOException("j2c::" + call + ": " + verb + " failed: " + strerror(e.errno()) + "\n", e);
    }
}

/** DiSNI context of an emulated device. */
final class EmuContext extends IbvContext {
    final dev.virtuoso.spi.verbs.IbvContext spi;

    EmuContext(dev.virtuoso.spi.verbs.IbvContext spi) throws IOException {
        super(-1, 1);
        this.spi = spi;
    }
}

final class EmuPd extends IbvPd {
    final dev.virtuoso.spi.verbs.IbvPd spi;

    EmuPd(IbvContext context, dev.virtuoso.spi.verbs.IbvPd spi) throws IOException {
        super(context);
        this.spi = spi;
    }
}

final class EmuMr extends IbvMr {
    final dev.virtuoso.spi.verbs.IbvMr spi;

    EmuMr(IbvContext context, dev.virtuoso.spi.verbs.IbvMr spi, int access) throws IOException {
        super(context, spi.address(), spi.length(), access, spi.lkey(), spi.rkey(), 0);
        this.spi = spi;
    }
}

final class EmuCompChannel extends IbvCompChannel {
    final dev.virtuoso.spi.verbs.IbvCompChannel spi;

    EmuCompChannel(IbvContext context, dev.virtuoso.spi.verbs.IbvCompChannel spi) throws IOException {
        super(-1, context);
        this.spi = spi;
    }
}

final class EmuCq extends IbvCQ {
    final dev.virtuoso.spi.verbs.IbvCq spi;

    EmuCq(IbvContext context, IbvCompChannel channel, dev.virtuoso.spi.verbs.IbvCq spi, int cqe)
            throws IOException {
        super(context, channel, 0);
        this.spi = spi;
        this.cqe = cqe;
    }
}

final class EmuQp extends IbvQP {
    final dev.virtuoso.spi.verbs.IbvQp spi;

    EmuQp(IbvContext context, IbvPd pd, IbvCQ sendCq, IbvCQ recvCq, dev.virtuoso.spi.verbs.IbvQp spi)
            throws IOException {
        super(spi.qpNum());
        this.spi = spi;
        this.context = context;
        this.pd = pd;
        this.send_cq = sendCq;
        this.recv_cq = recvCq;
        this.qp_type = IBV_QPT_RC;
    }
}
