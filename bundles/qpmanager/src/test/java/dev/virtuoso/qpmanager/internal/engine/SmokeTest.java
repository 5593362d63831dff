package dev.virtuoso.qpmanager.internal.engine;

import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void everyOperationOverTwoPaths() throws Exception {
        try (Fabric f = new Fabric("rate=1g", "rate=1g")) {
            Pair p = new Pair(f.connect(Fabric.options(), Fabric.options()), 8 << 20);
            p.write(4 << 20);
            p.read(3 << 20);
            p.sendAll(10, 100_000, 0, 1 << 20, 65535, 7);
            p.write(1);
            p.read(0);
        }
    }
}
