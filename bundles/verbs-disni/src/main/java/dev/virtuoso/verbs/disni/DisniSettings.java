package dev.virtuoso.verbs.disni;

import java.nio.file.Path;

/**
 * Settings of the DiSNI binding.
 *
 * @param sysfsRoot directory standing for {@code /sys}, where RDMA devices and GIDs are read
 * @param connectTimeoutMillis how long a QP may take from RTR to an established RDMA CM connection
 *     (address and route resolution, REQ/REP/RTU) before it goes to ERR
 * @param firstQpn first RDMA CM port tried for a QP's listener; the port is the QP's number
 * @param cmPollMillis slice of the connection-manager thread's event wait (bounds how long a
 *     control call such as createQp waits for the CM lock)
 */
public record DisniSettings(Path sysfsRoot, int connectTimeoutMillis, int firstQpn, int cmPollMillis) {

    /** Default first QP number (RDMA CM TCP port space, separate from the kernel's TCP ports). */
    public static final int DEFAULT_FIRST_QPN = 20000;

    public DisniSettings {
        if (sysfsRoot == null) {
            throw new IllegalArgumentException("sysfsRoot is required");
        }
        if (connectTimeoutMillis < 1) {
            throw new IllegalArgumentException("connectTimeoutMillis must be >= 1");
        }
        if (firstQpn < 1 || firstQpn > 65535) {
            throw new IllegalArgumentException("firstQpn must be in 1..65535: " + firstQpn);
        }
        if (cmPollMillis < 1 || cmPollMillis > 1000) {
            throw new IllegalArgumentException("cmPollMillis must be in 1..1000: " + cmPollMillis);
        }
    }

    /** @return the settings for a real host: /sys, 10 s connect timeout, QPNs from 20000, 10 ms slices */
    public static DisniSettings defaults() {
        return new DisniSettings(Path.of("/sys"), 10_000, DEFAULT_FIRST_QPN, 10);
    }

    /** @param root another sysfs root @return a copy using it */
    public DisniSettings withSysfsRoot(Path root) {
        return new DisniSettings(root, connectTimeoutMillis, firstQpn, cmPollMillis);
    }
}
