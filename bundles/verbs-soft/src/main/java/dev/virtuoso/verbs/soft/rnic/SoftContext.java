package dev.virtuoso.verbs.soft.rnic;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.Vnic;

/** An open soft RNIC device: owns the PDs, CQs and channels created through it. */
final class SoftContext implements IbvContext {
    final SoftRnic rnic;
    private final Set<SoftPd> pds = new LinkedHashSet<>();
    private final Set<SoftCq> cqs = new LinkedHashSet<>();
    private final Set<SoftCompChannel> channels = new LinkedHashSet<>();
    private boolean closed;

    SoftContext(SoftRnic rnic) {
        this.rnic = rnic;
    }

    @Override
    public String deviceName() {
        return rnic.name();
    }

    @Override
    public List<Vnic> vnics() {
        return rnic.vnics();
    }

    @Override
    public int udpPort() {
        return rnic.udpPort();
    }

    @Override
    public synchronized IbvDeviceAttr queryDevice() throws VerbsException {
        checkOpen();
        var c = rnic.config;
        boolean srq = c.sharedReceiveQueues();
        return new IbvDeviceAttr().maxQpWr(c.maxQueueWr()).maxSge(SoftPd.MAX_SGE).maxCqe(c.maxCqe())
                .maxSrq(srq ? Integer.MAX_VALUE : 0).maxSrqWr(srq ? c.maxQueueWr() : 0)
                .maxSrqSge(srq ? SoftPd.MAX_SGE : 0)
                .qpRateLimitMin(Requester.RATE_LIMIT_MIN_KBPS).qpRateLimitMax(Requester.RATE_LIMIT_MAX_KBPS);
    }

    @Override
    public synchronized IbvPd allocPd() throws VerbsException {
        checkOpen();
        SoftPd pd = new SoftPd(this);
        pds.add(pd);
        return pd;
    }

    @Override
    public synchronized IbvCompChannel createCompChannel() throws VerbsException {
        checkOpen();
        SoftCompChannel c = new SoftCompChannel(this);
        channels.add(c);
        return c;
    }

    @Override
    public synchronized IbvCq createCq(int cqe, IbvCompChannel channel) throws VerbsException {
        checkOpen();
        if (cqe < 1 || cqe > rnic.config.maxCqe()) {
            throw new VerbsException(VerbsException.EINVAL, "cqe must be in [1, "
                    + rnic.config.maxCqe() + "]: " + cqe);
        }
        if (channel != null && !channels.contains(channel)) {
            throw new VerbsException(VerbsException.EINVAL, "channel of another context");
        }
        SoftCq cq = new SoftCq(this, cqe, (SoftCompChannel) channel);
        cqs.add(cq);
        return cq;
    }

    @Override
    public VerbsCounters counters() {
        return rnic.counters;
    }

    synchronized void forget(SoftPd pd) {
        pds.remove(pd);
    }

    synchronized void forget(SoftCq cq) {
        cqs.remove(cq);
    }

    synchronized void forget(SoftCompChannel c) {
        channels.remove(c);
    }

    private void checkOpen() throws VerbsException {
        if (closed) {
            throw new VerbsException(VerbsException.EINVAL, "context closed");
        }
    }

    @Override
    public void close() {
        List<SoftPd> p;
        List<SoftCq> q;
        List<SoftCompChannel> c;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            p = new ArrayList<>(pds);
            q = new ArrayList<>(cqs);
            c = new ArrayList<>(channels);
        }
        p.forEach(SoftPd::close);
        q.forEach(SoftCq::close);
        c.forEach(SoftCompChannel::close);
        rnic.release(this);
    }

    @Override
    public String toString() {
        return "SoftContext[" + rnic.name() + "]";
    }
}
