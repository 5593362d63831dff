package dev.virtuoso.commands.scale;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpOpcode;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.VirtuosoException;

/**
 * One connection of the scale bench, both ends in this process: the client MP_SENDs
 * {@code messages} messages of {@code size} bytes from {@code depth} slots, the server receives
 * them into {@code depth} slots and checks every byte. A message is a 16-byte stamp (connection
 * number, sequence number) followed by the connection's slice of a shared pattern, so a lost,
 * duplicated, misplaced or corrupted message fails the run. Driven by one thread ({@link #step}).
 */
final class ScalePair implements AutoCloseable {
    private static final int STAMP = 16;

    private final int number;
    private final MultipathConnection client;
    private final MultipathConnection server;
    private final ByteBuffer sendBuf;
    private final ByteBuffer recvBuf;
    private final MemoryRegion sendRegion;
    private final MemoryRegion recvRegion;
    private final ByteBuffer pattern;
    private final int size;
    private final int depth;
    private final long messages;
    private final boolean[] sendBusy;
    private long posted;
    private long sent;
    private long recvPosted;
    private long received;

    /**
     * The application's memory of one connection, allocated before the connections (so the bench's
     * setup and per-connection figures count only Virtuoso's part): the send slots, each filled
     * with the connection's pattern, and the receive slots.
     *
     * @param number the connection's number in the run
     * @param pattern shared pattern of at least {@code size + 256} bytes (read only)
     * @return the send buffer and the receive buffer, {@code depth * size} bytes each
     */
    static ByteBuffer[] buffers(int number, ByteBuffer pattern, int size, int depth) {
        ByteBuffer slice = pattern.slice(number % 251, size);
        ByteBuffer send = ByteBuffer.allocateDirect(depth * size);
        for (int i = 0; i < depth; i++) {
            send.put(i * size, slice, 0, size);
        }
        return new ByteBuffer[] {send, ByteBuffer.allocateDirect(depth * size)};
    }

    /**
     * Registers the slots and posts the first receives.
     *
     * @param number the connection's number in the run (stamped into every message)
     * @param pattern shared pattern of at least {@code size + 256} bytes (read only)
     * @param buffers the connection's {@link #buffers}
     */
    ScalePair(int number, MultipathConnection client, MultipathConnection server, ByteBuffer pattern,
            ByteBuffer[] buffers, int size, int depth, long messages) throws VirtuosoException {
        this.number = number;
        this.client = client;
        this.server = server;
        this.pattern = pattern.slice(number % 251, size).asReadOnlyBuffer();
        this.size = size;
        this.depth = depth;
        this.messages = messages;
        this.sendBusy = new boolean[depth];
        sendBuf = buffers[0];
        recvBuf = buffers[1];
        sendRegion = client.register(sendBuf, EnumSet.of(Access.LOCAL_WRITE));
        recvRegion = server.register(recvBuf, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        while (recvPosted < Math.min(depth, messages)) {
            postRecv();
        }
    }

    private void postRecv() throws VirtuosoException {
        server.postRecv(recvPosted, recvRegion, (recvPosted % depth) * size, size);
        recvPosted++;
    }

    /**
     * Polls both ends once and posts what it can.
     *
     * @param comps completion scratch
     * @return true if anything happened
     * @throws IOException if a completion failed or a message is wrong
     */
    boolean step(MpCompletion[] comps) throws IOException {
        boolean progress = false;
        int k = client.pollCompletions(comps);
        for (int i = 0; i < k; i++) {
            check(comps[i], MpOpcode.SEND);
            sendBusy[(int) (comps[i].wrId() % depth)] = false;
            sent++;
            progress = true;
        }
        while (posted < messages && !sendBusy[(int) (posted % depth)]) {
            int slot = (int) (posted % depth);
            sendBuf.putLong(slot * size, number).putLong(slot * size + 8, posted);
            try {
                client.postSend(posted, sendRegion, (long) slot * size, size);
            } catch (VirtuosoException e) {
                if (e.reason() == VirtuosoException.Reason.QUEUE_FULL) {
                    break;
                }
                throw e;
            }
            sendBusy[slot] = true;
            posted++;
            progress = true;
        }
        k = server.pollCompletions(comps);
        for (int i = 0; i < k; i++) {
            check(comps[i], MpOpcode.RECV);
            verify(comps[i]);
            received++;
            if (recvPosted < messages) {
                postRecv();
            }
            progress = true;
        }
        return progress;
    }

    private void check(MpCompletion c, MpOpcode op) throws IOException {
        if (!c.ok() || c.opcode() != op) {
            throw new IOException("connection " + number + ": expected a successful " + op + ", got " + c
                    + "; client paths " + client.pathStats() + "; server paths " + server.pathStats());
        }
    }

    private void verify(MpCompletion c) throws IOException {
        long seq = c.wrId();
        int at = (int) (seq % depth) * size;
        if (c.byteLength() != size || recvBuf.getLong(at) != number || recvBuf.getLong(at + 8) != seq
                || recvBuf.slice(at + STAMP, size - STAMP).mismatch(pattern.slice(STAMP, size - STAMP)) >= 0) {
            throw new IOException("connection " + number + ": message " + seq + " is wrong (" + c.byteLength()
                    + " bytes, stamp " + recvBuf.getLong(at) + "/" + recvBuf.getLong(at + 8) + ")");
        }
    }

    /** @return true once every message was sent, completed and received */
    boolean done() {
        return sent == messages && received == messages;
    }

    /** @return messages received and verified */
    long received() {
        return received;
    }

    /** Deregisters the slots and disconnects both ends. */
    @Override
    public void close() {
        sendRegion.close();
        recvRegion.close();
        client.disconnect(5, TimeUnit.SECONDS);
        server.disconnect(5, TimeUnit.SECONDS);
    }

    /** @param size message size @return the shared pattern every pair slices (pseudo-random bytes) */
    static ByteBuffer pattern(int size) {
        ByteBuffer p = ByteBuffer.allocateDirect(size + 256);
        long x = 0x9E3779B97F4A7C15L;
        for (int i = 0; i < p.capacity(); i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            p.put(i, (byte) x);
        }
        return p;
    }
}
