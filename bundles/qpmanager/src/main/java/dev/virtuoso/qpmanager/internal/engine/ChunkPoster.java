package dev.virtuoso.qpmanager.internal.engine;

import dev.virtuoso.api.PathState;
import dev.virtuoso.decomposer.ChunkTransport;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.verbs.IbvSendFlags;
import dev.virtuoso.spi.verbs.IbvSendWr;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;
import dev.virtuoso.spi.verbs.VerbsException;

/**
 * The chunk data path of a connection: posts chunks and probe WRITEs on the paths' QPs through
 * each path's preallocated work request (engine thread, nothing allocated). Everything about a
 * path's life (its QP being replaced, added, removed) is {@link PathManager}'s, path control; a
 * failure seen here is handed to it.
 */
final class ChunkPoster implements ChunkTransport {
    private final PathSlot[] byId;
    private final PathTable table;
    private final PathManager control;

    /**
     * @param byId the path slots, by path id (owned and filled by {@code control})
     * @param table the paths' state, read only
     * @param control told when a post shows a path's QP in error
     */
    ChunkPoster(PathSlot[] byId, PathTable table, PathManager control) {
        this.byId = byId;
        this.table = table;
        this.control = control;
    }

    @Override
    public boolean post(int path, long wrId, IbvWrOpcode opcode, long localAddr, int length, int lkey,
            long remoteAddr, int rkey, int immData) {
        PathSlot s = byId[path];
        IbvSendWr wr = s.wr;
        wr.wrId(wrId).opcode(opcode).sendFlags(IbvSendFlags.SIGNALED).remoteAddr(remoteAddr).rkey(rkey)
                .immData(immData);
        if (length == 0) {
            wr.numSge(0);
        } else {
            wr.numSge(1).sge(0).set(localAddr, length, lkey);
        }
        try {
            s.qp.postSend(wr);
            return true;
        } catch (VerbsException e) {
            if (e.errno() != VerbsException.ENOMEM && table.state(path) == PathState.UP) {
                control.pathFailed(path, IbvWcStatus.GENERAL_ERR);
            }
            return false;
        }
    }

    @Override
    public int sendQueueDepth(int path) {
        return byId[path].sendQueueDepth;
    }

    @Override
    public void pathFailed(int path, IbvWcStatus status) {
        control.pathFailed(path, status);
    }
}
