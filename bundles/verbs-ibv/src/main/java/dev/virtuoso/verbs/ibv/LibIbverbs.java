package dev.virtuoso.verbs.ibv;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.virtuoso.spi.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * Downcall handles into one loaded libibverbs (and poll/fcntl of libc). Exported functions are
 * bound by name; the data-path verbs ({@code ibv_post_send}, {@code ibv_post_recv},
 * {@code ibv_post_srq_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq}) are static inline in
 * verbs.h and go through the function pointers in {@code struct ibv_context.ops}, bound with the
 * address-less handles below. One instance per provider; the library stays mapped for the JVM's
 * lifetime (like a JNI library), so a reloaded bundle binds again without harm.
 */
final class LibIbverbs {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout ERRNO_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = ERRNO_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    final String libraryName;
    private final SymbolLookup lib;

    final MethodHandle getDeviceList;
    final MethodHandle freeDeviceList;
    final MethodHandle getDeviceName;
    final MethodHandle openDevice;
    final MethodHandle closeDevice;
    final MethodHandle queryDevice;
    final MethodHandle queryGidTable;
    final MethodHandle allocPd;
    final MethodHandle deallocPd;
    final MethodHandle regMr;
    final MethodHandle deregMr;
    final MethodHandle createCompChannel;
    final MethodHandle destroyCompChannel;
    final MethodHandle createCq;
    final MethodHandle destroyCq;
    final MethodHandle getCqEvent;
    final MethodHandle ackCqEvents;
    final MethodHandle createQp;
    final MethodHandle modifyQp;
    final MethodHandle queryQp;
    final MethodHandle destroyQp;
    final MethodHandle createSrq;
    final MethodHandle destroySrq;
    final MethodHandle poll;
    final MethodHandle fcntl;

    /** (fn, cq, num_entries, wc) -> int, as context->ops.poll_cq. */
    final MethodHandle opsPollCq = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    /** (fn, cq, solicited_only) -> int, as context->ops.req_notify_cq. */
    final MethodHandle opsReqNotifyCq = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /** (fn, qp or srq, wr, bad_wr) -> int: post_send, post_recv and post_srq_recv. */
    final MethodHandle opsPost = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    /**
     * @param libraryName file name (dlopen search) or path of libibverbs
     * @throws IllegalArgumentException if the library does not load
     * @throws UnsatisfiedLinkError if a required symbol is missing
     */
    LibIbverbs(String libraryName) {
        this.libraryName = libraryName;
        this.lib = SymbolLookup.libraryLookup(libraryName, Arena.global());
        getDeviceList = bind("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        freeDeviceList = bind("ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS), false);
        getDeviceName = bind("ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS), false);
        openDevice = bind("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        closeDevice = bind("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        queryDevice = bind("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), false);
        queryGidTable = bind("_ibv_query_gid_table",
                FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG), false);
        allocPd = bind("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        deallocPd = bind("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        regMr = bind("ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), true);
        deregMr = bind("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createCompChannel = bind("ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        destroyCompChannel = bind("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createCq = bind("ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), true);
        destroyCq = bind("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        getCqEvent = bind("ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), true);
        ackCqEvents = bind("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), false);
        createQp = bind("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        modifyQp = bind("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
        queryQp = bind("ibv_query_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS), false);
        destroyQp = bind("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createSrq = bind("ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        destroySrq = bind("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        SymbolLookup libc = LINKER.defaultLookup();
        poll = LINKER.downcallHandle(libc.find("poll").orElseThrow(() -> new UnsatisfiedLinkError("poll")),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT), Linker.Option.captureCallState("errno"));
        fcntl = LINKER.downcallHandle(libc.find("fcntl").orElseThrow(() -> new UnsatisfiedLinkError("fcntl")),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), Linker.Option.firstVariadicArg(2));
    }

    private MethodHandle bind(String symbol, FunctionDescriptor fd, boolean captureErrno) {
        MemorySegment address = lib.find(symbol).orElseThrow(() -> new UnsatisfiedLinkError(
                libraryName + " has no symbol " + symbol + " (rdma-core 32 or newer is required)"));
        return captureErrno ? LINKER.downcallHandle(address, fd, Linker.Option.captureCallState("errno"))
                : LINKER.downcallHandle(address, fd);
    }

    /** A segment for the errno captured by a call; control path only. */
    static MemorySegment errnoState(Arena arena) {
        return arena.allocate(ERRNO_STATE);
    }

    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Maps a native return code (errno, or -errno) to the SPI's exception. */
    static VerbsException failure(String call, int code) {
        int errno = Math.abs(code);
        return new VerbsException(errno == 0 ? VerbsException.EIO : errno, call + " failed");
    }

    /** Rethrows what a downcall can throw as a VerbsException (a downcall itself declares Throwable). */
    static VerbsException unexpected(String call, Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        if (t instanceof RuntimeException e) {
            throw e;
        }
        return new VerbsException(VerbsException.EIO, call + " failed: " + t, t);
    }

    /** A native call that returns a new object, or NULL with errno captured. */
    @FunctionalInterface
    interface Creation {
        MemorySegment call(Arena arena, MemorySegment errno) throws Throwable;
    }

    /** Runs a creating call (control path): NULL becomes the captured errno as a VerbsException. */
    static MemorySegment create(String call, Creation creation) throws VerbsException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = errnoState(arena);
            MemorySegment created = creation.call(arena, errno);
            if (created.equals(MemorySegment.NULL)) {
                throw failure(call, errno(errno));
            }
            return created;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(call, t);
        }
    }

    /** Calls an {@code int destroy(obj)} function; a failure there is a bug, not a runtime condition. */
    static void destroy(MethodHandle destroy, MemorySegment object, String call) {
        try {
            int rc = (int) destroy.invokeExact(object);
            assert rc == 0 : rc;
        } catch (Throwable t) {
            throw new IllegalStateException(call + " failed", t);
        }
    }
}
