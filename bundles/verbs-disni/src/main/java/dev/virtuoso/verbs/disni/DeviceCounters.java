package dev.virtuoso.verbs.disni;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import dev.virtuoso.spi.verbs.VerbsCounter;
import dev.virtuoso.spi.verbs.VerbsCounters;
import dev.virtuoso.verbs.disni.sysfs.RdmaSysfs;

/**
 * Device-wide counters of a real RNIC, read from sysfs ({@code ports/<p>/counters} and
 * {@code ports/<p>/hw_counters}, summed over the device's RoCE ports) and reported as increases
 * since the context was opened. Counters the kernel does not publish for the device report -1.
 * {@code port_xmit_data}/{@code port_rcv_data} count 4-byte words.
 */
final class DeviceCounters implements VerbsCounters {
    private record Source(String file, long scale) {
    }

    private static final Map<VerbsCounter, Source> SOURCES = sources();

    private final RdmaSysfs sysfs;
    private final String device;
    private final List<Integer> ports;
    private final Map<VerbsCounter, Long> baseline = new EnumMap<>(VerbsCounter.class);

    DeviceCounters(RdmaSysfs sysfs, String device, List<Integer> ports) {
        this.sysfs = sysfs;
        this.device = device;
        this.ports = List.copyOf(ports);
        for (VerbsCounter c : SOURCES.keySet()) {
            OptionalLong v = raw(c);
            if (v.isPresent()) {
                baseline.put(c, v.getAsLong());
            }
        }
    }

    private static Map<VerbsCounter, Source> sources() {
        Map<VerbsCounter, Source> m = new EnumMap<>(VerbsCounter.class);
        m.put(VerbsCounter.TX_PACKETS, new Source("counters/port_xmit_packets", 1));
        m.put(VerbsCounter.RX_PACKETS, new Source("counters/port_rcv_packets", 1));
        m.put(VerbsCounter.TX_BYTES, new Source("counters/port_xmit_data", 4));
        m.put(VerbsCounter.RX_BYTES, new Source("counters/port_rcv_data", 4));
        m.put(VerbsCounter.RETRANSMIT_TIMEOUTS, new Source("hw_counters/local_ack_timeout_err", 1));
        m.put(VerbsCounter.DUPLICATE_REQUESTS, new Source("hw_counters/duplicate_request", 1));
        m.put(VerbsCounter.NAK_SEQ_RECEIVED, new Source("hw_counters/packet_seq_err", 1));
        m.put(VerbsCounter.RNR_NAK_RECEIVED, new Source("hw_counters/rnr_nak_retry_err", 1));
        return Collections.unmodifiableMap(m);
    }

    private OptionalLong raw(VerbsCounter c) {
        Source s = SOURCES.get(c);
        if (s == null) {
            return OptionalLong.empty();
        }
        long sum = 0;
        boolean any = false;
        for (int p : ports) {
            OptionalLong v = sysfs.portCounter(device, p, s.file());
            if (v.isPresent()) {
                sum += v.getAsLong() * s.scale();
                any = true;
            }
        }
        return any ? OptionalLong.of(sum) : OptionalLong.empty();
    }

    @Override
    public long get(VerbsCounter counter) {
        Long base = baseline.get(counter);
        if (base == null) {
            return -1;
        }
        OptionalLong now = raw(counter);
        return now.isPresent() ? Math.max(0, now.getAsLong() - base) : -1;
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
