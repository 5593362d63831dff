package dev.virtuoso.qpmanager.internal.engine;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

import dev.virtuoso.api.VirtuosoException;
import dev.virtuoso.api.VirtuosoException.Reason;
import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.VerbsProvider;
import dev.virtuoso.spi.verbs.Vnic;

/**
 * One connection's device context with its single protection domain, completion channel and
 * shared completion queue. Closing the context releases everything created through it.
 */
final class VerbsResources implements AutoCloseable {
    final IbvContext context;
    final IbvPd pd;
    final IbvCompChannel channel;
    final IbvCq cq;
    /** The device's capabilities: what the connection may use (e.g. SRQs) is decided from them. */
    final IbvDeviceAttr device;

    private VerbsResources(IbvContext context, IbvDeviceAttr device, IbvPd pd, IbvCompChannel channel, IbvCq cq) {
        this.context = context;
        this.device = device;
        this.pd = pd;
        this.channel = channel;
        this.cq = cq;
    }

    /**
     * @param cqEntries the CQ size for the device's capabilities
     */
    static VerbsResources open(VerbsProvider provider, String device, ToIntFunction<IbvDeviceAttr> cqEntries)
            throws VirtuosoException {
        IbvContext ctx;
        try {
            ctx = provider.openDevice(device);
        } catch (VerbsException e) {
            throw new VirtuosoException(Reason.PROVIDER_UNAVAILABLE, "cannot open device "
                    + (device == null ? "(first)" : device) + " of provider " + provider.name() + ": " + e.getMessage(), e);
        }
        try {
            IbvDeviceAttr attr = ctx.queryDevice();
            IbvPd pd = ctx.allocPd();
            IbvCompChannel ch = ctx.createCompChannel();
            IbvCq cq = ctx.createCq(cqEntries.applyAsInt(attr), ch);
            return new VerbsResources(ctx, attr, pd, ch, cq);
        } catch (VerbsException | RuntimeException e) {
            ctx.close();
            throw new VirtuosoException(Reason.VERBS, "cannot allocate PD/CQ: " + e.getMessage(), e);
        }
    }

    /** @return the vNIC with this address, or {@code null} */
    Vnic vnic(InetAddress address) {
        for (Vnic v : context.vnics()) {
            if (v.address().equals(address)) {
                return v;
            }
        }
        return null;
    }

    List<InetAddress> addresses() {
        List<InetAddress> out = new ArrayList<>();
        for (Vnic v : context.vnics()) {
            out.add(v.address());
        }
        return out;
    }

    @Override
    public void close() {
        context.close();
    }
}
