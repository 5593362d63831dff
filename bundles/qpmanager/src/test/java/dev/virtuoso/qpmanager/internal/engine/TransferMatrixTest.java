package dev.virtuoso.qpmanager.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.virtuoso.api.MpCompletion;

/** Every byte of WRITE, READ and SEND checked over 1 to 16 paths, for sizes from 1 byte up. */
class TransferMatrixTest {
    private static final int[] SIZES = {1, 7, 4096, 65535, 65536, (1 << 20) + 3, 5 * (1 << 20) + 1};

    private static String[] unlimited(int n) {
        String[] s = new String[n];
        Arrays.fill(s, "rate=0");
        return s;
    }

    @ParameterizedTest(name = "{0} paths")
    @ValueSource(ints = {1, 2, 3, 8, 16})
    void everySizeAndOperation(int paths) throws Exception {
        try (Fabric f = new Fabric(unlimited(paths))) {
            var o = Fabric.options().chunkSize(256 * 1024);
            Pair p = new Pair(f.connect(o, Fabric.options()), 16 << 20);
            assertEquals(paths, p.client.pathStats().size());
            assertEquals(paths, p.server.pathStats().size());
            for (int size : SIZES) {
                MpCompletion w = p.write(size);
                int expected = size < 65536 ? 1 : (int) Math.min(paths, (size + 256 * 1024 - 1) / (256 * 1024));
                assertEquals(expected, w.paths(), "paths used by a write of " + size);
                p.read(size);
            }
            p.sendAll(SIZES);
            p.sendAll(0, 1, 0);
        }
    }

    @Test
    void twoHundredFiftySixMebibytes() throws Exception {
        try (Fabric f = new Fabric("rate=0", "rate=0", "rate=0", "rate=0")) {
            Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 256 << 20);
            MpCompletion w = p.write(256 << 20);
            assertEquals(4, w.paths());
            p.sendAll(32 << 20);
            p.read(32 << 20);
            long bytes = p.client.pathStats().stream().mapToLong(s -> s.bytesCompleted()).sum();
            assertTrue(bytes >= (288L << 20), "path counters saw " + bytes);
        }
    }
}
