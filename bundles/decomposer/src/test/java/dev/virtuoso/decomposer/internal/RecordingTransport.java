package dev.virtuoso.decomposer.internal;

import java.util.ArrayList;
import java.util.List;

import dev.virtuoso.api.PathState;
import dev.virtuoso.decomposer.ChunkTransport;
import dev.virtuoso.decomposer.PathTable;
import dev.virtuoso.spi.verbs.IbvWcStatus;
import dev.virtuoso.spi.verbs.IbvWrOpcode;

/** A transport for unit tests: records every chunk; the test completes them in any order. */
final class RecordingTransport implements ChunkTransport {
    record Chunk(int path, long wrId, IbvWrOpcode opcode, long localAddr, int length, long remoteAddr, int imm) {
    }

    final List<Chunk> posted = new ArrayList<>();
    final List<Integer> failedPaths = new ArrayList<>();
    int depth = 128;
    boolean refuse;
    /** Marked RECOVERING on a path failure, as the core does; {@code null}: not marked. */
    PathTable paths;

    @Override
    public boolean post(int path, long wrId, IbvWrOpcode opcode, long localAddr, int length, int lkey,
            long remoteAddr, int rkey, int immData) {
        if (refuse) {
            return false;
        }
        posted.add(new Chunk(path, wrId, opcode, localAddr, length, remoteAddr, immData));
        return true;
    }

    @Override
    public int sendQueueDepth(int path) {
        return depth;
    }

    @Override
    public void pathFailed(int path, IbvWcStatus status) {
        failedPaths.add(path);
        if (paths != null) {
            paths.state(path, PathState.RECOVERING); // as the core's path lifecycle does
        }
    }

    /** Removes and returns every chunk posted so far. */
    List<Chunk> take() {
        List<Chunk> out = new ArrayList<>(posted);
        posted.clear();
        return out;
    }
}
