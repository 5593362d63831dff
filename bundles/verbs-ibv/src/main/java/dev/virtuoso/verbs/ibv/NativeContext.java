package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.virtuoso.spi.verbs.IbvCompChannel;
import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvCq;
import dev.virtuoso.spi.verbs.IbvDeviceAttr;
import dev.virtuoso.spi.verbs.IbvPd;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.spi.verbs.VerbsException;
import dev.virtuoso.spi.verbs.Vnic;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;

/** An open device ({@code struct ibv_context}) and the data-path function pointers of its ops. */
final class NativeContext implements IbvContext {
    static final int ROCE_V2_UDP_PORT = 4791;

    final LibIbverbs lib;
    final MemorySegment ctx;
    final MemorySegment pollCqFn;
    final MemorySegment reqNotifyCqFn;
    final MemorySegment postSendFn;
    final MemorySegment postRecvFn;
    final MemorySegment postSrqRecvFn;
    private final String deviceName;
    private final List<Vnic> vnics;
    private final VerbsCounters counters;
    private final OwnedObjects children = new OwnedObjects(VerbsException.ENODEV, "device context closed");

    NativeContext(LibIbverbs lib, MemorySegment ctx, String deviceName, List<Vnic> vnics) {
        this.lib = lib;
        this.ctx = ctx;
        this.deviceName = deviceName;
        this.vnics = List.copyOf(vnics);
        MemorySegment head = ctx.reinterpret(Structs.CONTEXT.byteSize());
        pollCqFn = head.get(ADDRESS, Structs.offset(Structs.CONTEXT, "poll_cq"));
        reqNotifyCqFn = head.get(ADDRESS, Structs.offset(Structs.CONTEXT, "req_notify_cq"));
        postSendFn = head.get(ADDRESS, Structs.offset(Structs.CONTEXT, "post_send"));
        postRecvFn = head.get(ADDRESS, Structs.offset(Structs.CONTEXT, "post_recv"));
        postSrqRecvFn = head.get(ADDRESS, Structs.offset(Structs.CONTEXT, "post_srq_recv"));
        counters = new SysfsCounters(Path.of("/sys/class/infiniband", deviceName, "ports", "1", "hw_counters"));
    }

    @Override
    public String deviceName() {
        return deviceName;
    }

    @Override
    public List<Vnic> vnics() {
        return vnics;
    }

    @Override
    public int udpPort() {
        return ROCE_V2_UDP_PORT;
    }

    @Override
    public IbvDeviceAttr queryDevice() throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(Structs.DEVICE_ATTR);
            int rc = (int) lib.queryDevice.invokeExact(ctx, a);
            if (rc != 0) {
                throw LibIbverbs.failure("ibv_query_device", rc);
            }
            return new IbvDeviceAttr().maxQpWr(deviceInt(a, "max_qp_wr")).maxSge(deviceInt(a, "max_sge"))
                    .maxCqe(deviceInt(a, "max_cqe")).maxSrq(deviceInt(a, "max_srq"))
                    .maxSrqWr(deviceInt(a, "max_srq_wr")).maxSrqSge(deviceInt(a, "max_srq_sge"));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw LibIbverbs.unexpected("ibv_query_device", t);
        }
    }

    private static int deviceInt(MemorySegment a, String member) {
        return a.get(JAVA_INT, Structs.offset(Structs.DEVICE_ATTR, member));
    }

    @Override
    public IbvPd allocPd() throws VerbsException {
        MemorySegment pd = LibIbverbs.create("ibv_alloc_pd",
                (arena, errno) -> (MemorySegment) lib.allocPd.invokeExact(errno, ctx));
        return children.adopt(new NativePd(this, pd));
    }

    @Override
    public IbvCompChannel createCompChannel() throws VerbsException {
        return children.adopt(NativeCompChannel.create(this));
    }

    @Override
    public IbvCq createCq(int cqe, IbvCompChannel channel) throws VerbsException {
        if (channel != null && !(channel instanceof NativeCompChannel)) {
            throw new VerbsException(VerbsException.EINVAL, "completion channel of another provider");
        }
        return children.adopt(NativeCq.create(this, cqe, (NativeCompChannel) channel));
    }

    /** Posts a prepared WR through one of the ops function pointers (data path: no allocation). */
    void post(MemorySegment fn, MemorySegment queue, WorkRequests.Prepared wr, String call) throws VerbsException {
        int rc;
        try {
            rc = (int) lib.opsPost.invokeExact(fn, queue, wr.wr, wr.badWr);
        } catch (Throwable t) {
            throw LibIbverbs.unexpected(call, t);
        }
        if (rc != 0) {
            throw LibIbverbs.failure(call, rc);
        }
    }

    @Override
    public VerbsCounters counters() {
        return counters;
    }

    /**
     * Destroys what is still open in dependency order (PDs with their QPs, SRQs and MRs, then CQs,
     * then channels), then closes the device. Idempotent.
     */
    @Override
    public void close() {
        if (!children.closeAll(List.of(NativePd.class, NativeCq.class, NativeCompChannel.class))) {
            return;
        }
        LibIbverbs.destroy(lib.closeDevice, ctx, "ibv_close_device");
    }
}
