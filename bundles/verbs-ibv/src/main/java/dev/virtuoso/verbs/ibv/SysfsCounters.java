package dev.virtuoso.verbs.ibv;

import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Device counters from the kernel's {@code hw_counters} directory of port 1, as increases since
 * the context was opened; -1 for what the device does not publish (names are those of rxe and
 * mlx5; a QP-level view is not published by the kernel, see {@link #UNPUBLISHED}).
 */
final class SysfsCounters implements VerbsCounters {
    /** Counters for objects the kernel publishes none for. */
    static final VerbsCounters UNPUBLISHED = new VerbsCounters() {
        @Override
        public long get(VerbsCounter counter) {
            return -1;
        }

        @Override
        public Map<VerbsCounter, Long> snapshot() {
            Map<VerbsCounter, Long> m = new EnumMap<>(VerbsCounter.class);
            for (VerbsCounter c : VerbsCounter.values()) {
                m.put(c, -1L);
            }
            return m;
        }
    };

    private static final Map<VerbsCounter, String[]> FILES = files();

    private final Path dir;
    private final Map<VerbsCounter, Long> baseline = new EnumMap<>(VerbsCounter.class);

    SysfsCounters(Path hwCounters) {
        this.dir = hwCounters;
        for (VerbsCounter c : FILES.keySet()) {
            long v = raw(c);
            if (v >= 0) {
                baseline.put(c, v);
            }
        }
    }

    private static Map<VerbsCounter, String[]> files() {
        Map<VerbsCounter, String[]> m = new EnumMap<>(VerbsCounter.class);
        m.put(VerbsCounter.TX_PACKETS, new String[] {"sent_pkts"});
        m.put(VerbsCounter.RX_PACKETS, new String[] {"rcvd_pkts"});
        m.put(VerbsCounter.DUPLICATE_REQUESTS, new String[] {"duplicate_request"});
        m.put(VerbsCounter.NAK_SEQ_RECEIVED, new String[] {"rcvd_seq_err", "packet_seq_err"});
        m.put(VerbsCounter.RNR_NAK_RECEIVED, new String[] {"rcvd_rnr_err", "rnr_nak_retry_err"});
        m.put(VerbsCounter.RNR_NAK_SENT, new String[] {"send_rnr_err"});
        m.put(VerbsCounter.RETRANSMIT_TIMEOUTS, new String[] {"local_ack_timeout_err"});
        return Collections.unmodifiableMap(m);
    }

    private long raw(VerbsCounter c) {
        String[] names = FILES.get(c);
        if (names == null) {
            return -1;
        }
        for (String n : names) {
            try {
                return Long.parseLong(Files.readString(dir.resolve(n)).strip());
            } catch (IOException | NumberFormatException e) {
                // try the next name
            }
        }
        return -1;
    }

    @Override
    public long get(VerbsCounter counter) {
        Long base = baseline.get(counter);
        if (base == null) {
            return -1;
        }
        long now = raw(counter);
        return now < 0 ? -1 : Math.max(0, now - base);
    }

    @Override
    public Map<VerbsCounter, Long> snapshot() {
        Map<VerbsCounter, Long> m = new EnumMap<>(VerbsCounter.class);
        for (VerbsCounter c : VerbsCounter.values()) {
            m.put(c, get(c));
        }
        return m;
    }
}
