package dev.virtuoso.api;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of one side of a multipath connection, used by {@link MultipathConnector#connect} and
 * {@link MultipathConnector#listen}. Immutable; build with {@link #builder()}. Every setting has a
 * sane default, listed on the builder method.
 */
public final class ConnectOptions {
    /** The core's own placement, used when no named load-balancing policy is bound. */
    public static final String BUILTIN_ROUND_ROBIN = "builtin-roundrobin";
    /** The core's own fixed chunk size, used when no named congestion-avoidance policy is bound. */
    public static final String BUILTIN_FIXED_CHUNK = "builtin-fixed";
    /**
     * The default of both policy choices: the policy the deployment ranks best
     * ({@code dev.virtuoso.spi.policy.DefaultPolicyRank}; in OSGi the policy binding registers it
     * under this name). Where nothing is registered under this name (plain Java without the
     * binding, or the binding stopped) the connection runs on its fallback.
     *
     * @since 1.2
     */
    public static final String DEFAULT_POLICY = "default";
    /**
     * Most paths one connection may have at once: those the handshake sets up plus those added
     * later (a removed path's slot is reused). The connector's {@code maxPaths} setting may lower
     * it, never raise it; tools that take a number of paths check against it.
     *
     * @since 1.1
     */
    public static final int MAX_PATHS = 32;
    /**
     * Smallest small-message slot: a slot must hold one of the reassembly's control messages (a
     * report, a credit and an advertisement).
     *
     * @since 1.3
     */
    public static final int MIN_SLOT_BYTES = 64;
    /** @since 1.3 largest small-message slot */
    public static final int MAX_SLOT_BYTES = 1 << 20;
    /** @since 1.3 default small-message slot: 16 slots of it are 256 KiB per connection end */
    public static final int DEFAULT_SLOT_BYTES = 16 * 1024;

    private final String provider;
    private final String device;
    private final List<InetAddress> localAddresses;
    private final List<InetAddress> remoteAddresses;
    private final String loadBalancer;
    private final String congestionAvoidance;
    private final String fallbackLoadBalancer;
    private final String fallbackCongestionAvoidance;
    private final Map<String, Object> policyProperties;
    private final Duration handshakeTimeout;
    private final Duration providerTimeout;
    private final Duration failoverTimeout;
    private final byte[] sharedSecret;
    private final int maxOutstanding;
    private final int splitThreshold;
    private final int chunkSize;
    private final int mtu;
    private final int ackTimeout;
    private final int retryCount;
    private final int rnrRetry;
    private final int smallMessageSlots;
    private final int smallMessageSlotBytes;

    private ConnectOptions(Builder b) {
        provider = b.provider;
        device = b.device;
        localAddresses = List.copyOf(b.localAddresses);
        remoteAddresses = List.copyOf(b.remoteAddresses);
        loadBalancer = b.loadBalancer;
        congestionAvoidance = b.congestionAvoidance;
        fallbackLoadBalancer = b.fallbackLoadBalancer;
        fallbackCongestionAvoidance = b.fallbackCongestionAvoidance;
        policyProperties = Map.copyOf(b.policyProperties);
        handshakeTimeout = b.handshakeTimeout;
        providerTimeout = b.providerTimeout;
        failoverTimeout = b.failoverTimeout;
        sharedSecret = b.sharedSecret == null ? null : b.sharedSecret.clone();
        maxOutstanding = b.maxOutstanding;
        splitThreshold = b.splitThreshold;
        chunkSize = b.chunkSize;
        mtu = b.mtu;
        ackTimeout = b.ackTimeout;
        retryCount = b.retryCount;
        rnrRetry = b.rnrRetry;
        smallMessageSlots = b.smallMessageSlots;
        smallMessageSlotBytes = b.smallMessageSlotBytes;
    }

    /** @return a builder with every default */
    public static Builder builder() {
        return new Builder();
    }

    /** @return a builder initialised from these options */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.provider = provider;
        b.device = device;
        b.localAddresses = new ArrayList<>(localAddresses);
        b.remoteAddresses = new ArrayList<>(remoteAddresses);
        b.loadBalancer = loadBalancer;
        b.congestionAvoidance = congestionAvoidance;
        b.fallbackLoadBalancer = fallbackLoadBalancer;
        b.fallbackCongestionAvoidance = fallbackCongestionAvoidance;
        b.policyProperties = new HashMap<>(policyProperties);
        b.handshakeTimeout = handshakeTimeout;
        b.providerTimeout = providerTimeout;
        b.failoverTimeout = failoverTimeout;
        b.sharedSecret = sharedSecret == null ? null : sharedSecret.clone();
        b.maxOutstanding = maxOutstanding;
        b.splitThreshold = splitThreshold;
        b.chunkSize = chunkSize;
        b.mtu = mtu;
        b.ackTimeout = ackTimeout;
        b.retryCount = retryCount;
        b.rnrRetry = rnrRetry;
        b.smallMessageSlots = smallMessageSlots;
        b.smallMessageSlotBytes = smallMessageSlotBytes;
        return b;
    }

    /** @return verbs provider name ({@code soft}, {@code disni}), or {@code null} for the default */
    public String provider() {
        return provider;
    }

    /** @return device name, or {@code null} for the provider's first device */
    public String device() {
        return device;
    }

    /** @return local vNIC addresses to use as paths; empty means every vNIC of the device */
    public List<InetAddress> localAddresses() {
        return localAddresses;
    }

    /** @return remote vNIC addresses to pair with; empty means those the peer advertises */
    public List<InetAddress> remoteAddresses() {
        return remoteAddresses;
    }

    public String loadBalancer() {
        return loadBalancer;
    }

    public String congestionAvoidance() {
        return congestionAvoidance;
    }

    public String fallbackLoadBalancer() {
        return fallbackLoadBalancer;
    }

    public String fallbackCongestionAvoidance() {
        return fallbackCongestionAvoidance;
    }

    /** @return configuration handed to the policies' sessions */
    public Map<String, Object> policyProperties() {
        return policyProperties;
    }

    public Duration handshakeTimeout() {
        return handshakeTimeout;
    }

    /**
     * @return how long {@link MultipathConnector#listen} and {@link MultipathConnector#connect} wait
     *     for the verbs provider (and the device) these options name to be available
     * @since 1.1
     */
    public Duration providerTimeout() {
        return providerTimeout;
    }

    public Duration failoverTimeout() {
        return failoverTimeout;
    }

    /** @return a copy of the shared secret, or {@code null} if peers are not authenticated */
    public byte[] sharedSecret() {
        return sharedSecret == null ? null : sharedSecret.clone();
    }

    public int maxOutstanding() {
        return maxOutstanding;
    }

    public int splitThreshold() {
        return splitThreshold;
    }

    public int chunkSize() {
        return chunkSize;
    }

    public int mtu() {
        return mtu;
    }

    public int ackTimeout() {
        return ackTimeout;
    }

    public int retryCount() {
        return retryCount;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public int smallMessageSlots() {
        return smallMessageSlots;
    }

    /**
     * @return bytes of each small-message slot as configured; a connection uses the smaller of
     *     this and the split threshold
     * @since 1.3
     */
    public int smallMessageSlotBytes() {
        return smallMessageSlotBytes;
    }

    @Override
    public String toString() {
        return "ConnectOptions[provider=" + provider + ", device=" + device + ", local=" + localAddresses
                + ", remote=" + remoteAddresses + ", lb=" + loadBalancer + ", cc=" + congestionAvoidance
                + ", splitThreshold=" + splitThreshold + ", chunkSize=" + chunkSize + ", mtu=" + mtu
                + ", secret=" + (sharedSecret != null ? "set" : "none") + "]";
    }

    /** Builder of {@link ConnectOptions}. Not thread-safe. */
    public static final class Builder {
        private String provider;
        private String device;
        private List<InetAddress> localAddresses = new ArrayList<>();
        private List<InetAddress> remoteAddresses = new ArrayList<>();
        private String loadBalancer = DEFAULT_POLICY;
        private String congestionAvoidance = DEFAULT_POLICY;
        private String fallbackLoadBalancer = BUILTIN_ROUND_ROBIN;
        private String fallbackCongestionAvoidance = BUILTIN_FIXED_CHUNK;
        private Map<String, Object> policyProperties = new HashMap<>();
        private Duration handshakeTimeout = Duration.ofSeconds(10);
        private Duration providerTimeout = Duration.ofSeconds(5);
        private Duration failoverTimeout = Duration.ofSeconds(10);
        private byte[] sharedSecret;
        private int maxOutstanding = 1024;
        private int splitThreshold = 64 * 1024;
        private int chunkSize = 1024 * 1024;
        private int mtu = 4096;
        private int ackTimeout = 14;
        private int retryCount = 7;
        private int rnrRetry = 7;
        private int smallMessageSlots = 16;
        private int smallMessageSlotBytes = DEFAULT_SLOT_BYTES;

        private Builder() {
        }

        /** @param name verbs provider ({@code soft}, {@code disni}); default: the soft RNIC if no other is asked for @return this */
        public Builder provider(String name) {
            this.provider = name;
            return this;
        }

        /** @param name device name; default the provider's first device @return this */
        public Builder device(String name) {
            this.device = name;
            return this;
        }

        /**
         * @param addresses local vNIC addresses, one path each (at most {@link #MAX_PATHS}); default
         *     every vNIC, the first {@link #MAX_PATHS} of them
         * @return this
         */
        public Builder localAddresses(List<InetAddress> addresses) {
            this.localAddresses = new ArrayList<>(checkPathCount("local", addresses));
            return this;
        }

        /** @param addresses local vNIC addresses, one path each @return this */
        public Builder localAddresses(InetAddress... addresses) {
            return localAddresses(Arrays.asList(addresses));
        }

        /**
         * @param addresses remote vNIC addresses paired in order with the local ones; default: what
         *     the peer advertises in the handshake
         * @return this
         */
        public Builder remoteAddresses(List<InetAddress> addresses) {
            this.remoteAddresses = new ArrayList<>(checkPathCount("remote", addresses));
            return this;
        }

        private static List<InetAddress> checkPathCount(String which, List<InetAddress> addresses) {
            if (addresses.size() > MAX_PATHS) {
                throw new IllegalArgumentException(addresses.size() + " " + which + " addresses: a connection has at most "
                        + MAX_PATHS + " paths");
            }
            return addresses;
        }

        /** @param addresses remote vNIC addresses @return this */
        public Builder remoteAddresses(InetAddress... addresses) {
            return remoteAddresses(Arrays.asList(addresses));
        }

        /**
         * @param name load-balancing policy by name; default {@value ConnectOptions#DEFAULT_POLICY} (the
         *     best-ranked one registered, else the fallback)
         * @return this
         */
        public Builder loadBalancer(String name) {
            this.loadBalancer = Objects.requireNonNull(name, "loadBalancer");
            return this;
        }

        /**
         * @param name congestion-avoidance policy by name; default {@value ConnectOptions#DEFAULT_POLICY}
         *     (the best-ranked one registered, else the fallback)
         * @return this
         */
        public Builder congestionAvoidance(String name) {
            this.congestionAvoidance = Objects.requireNonNull(name, "congestionAvoidance");
            return this;
        }

        /**
         * @param name policy used while the chosen load balancer is not registered (absent, or its bundle
         *     stopped or being updated); the connection returns to the chosen one when it registers
         *     again; default {@value ConnectOptions#BUILTIN_ROUND_ROBIN}
         * @return this
         */
        public Builder fallbackLoadBalancer(String name) {
            this.fallbackLoadBalancer = Objects.requireNonNull(name, "fallbackLoadBalancer");
            return this;
        }

        /**
         * @param name policy used while the chosen congestion avoidance is not registered; the
         *     connection returns to the chosen one when it registers again; default
         *     {@value ConnectOptions#BUILTIN_FIXED_CHUNK}
         * @return this
         */
        public Builder fallbackCongestionAvoidance(String name) {
            this.fallbackCongestionAvoidance = Objects.requireNonNull(name, "fallbackCongestionAvoidance");
            return this;
        }

        /** @param key policy property @param value its value @return this */
        public Builder policyProperty(String key, Object value) {
            this.policyProperties.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        /** @param t limit for each step of the bootstrap handshake; default 10 s @return this */
        public Builder handshakeTimeout(Duration t) {
            this.handshakeTimeout = positive(t, "handshakeTimeout");
            return this;
        }

        /**
         * How long {@code listen} and {@code connect} wait for the named verbs provider to be bound
         * by the connector and to offer the named device (any device if none is named) before
         * failing with {@link VirtuosoException.Reason#PROVIDER_UNAVAILABLE}. A provider that is
         * being re-created (its configuration changed) is thus waited for, so callers need no retry
         * loop. Zero fails at once.
         *
         * @param t the bound, zero or positive; default 5 s
         * @return this
         * @since 1.1
         */
        public Builder providerTimeout(Duration t) {
            if (t == null || t.isNegative()) {
                throw new IllegalArgumentException("providerTimeout must be zero or positive: " + t);
            }
            this.providerTimeout = t;
            return this;
        }

        /**
         * @param t how long MP work requests wait for a path to recover when every path has failed,
         *     before completing with {@link MpStatus#PATH_FAILURE}; default 10 s
         * @return this
         */
        public Builder failoverTimeout(Duration t) {
            this.failoverTimeout = positive(t, "failoverTimeout");
            return this;
        }

        /** @param secret shared secret both sides must hold (HMAC challenge); default none @return this */
        public Builder sharedSecret(byte[] secret) {
            if (secret != null && secret.length == 0) {
                throw new IllegalArgumentException("sharedSecret must not be empty");
            }
            this.sharedSecret = secret == null ? null : secret.clone();
            return this;
        }

        /** @param n MP work requests outstanding at once; default 1024 @return this */
        public Builder maxOutstanding(int n) {
            this.maxOutstanding = atLeast(n, 1, "maxOutstanding");
            return this;
        }

        /**
         * @param bytes messages smaller than this go whole on one path (no split); default 64 KiB
         * @return this
         */
        public Builder splitThreshold(int bytes) {
            this.splitThreshold = atLeast(bytes, 0, "splitThreshold");
            return this;
        }

        /**
         * @param bytes chunk size of the built-in fixed congestion avoidance
         *     ({@value ConnectOptions#BUILTIN_FIXED_CHUNK}: used when chosen, or as the fallback); a
         *     named policy has its own ({@code cc-fixed.chunkBytes}); default 1 MiB
         * @return this
         */
        public Builder chunkSize(int bytes) {
            this.chunkSize = atLeast(bytes, 1, "chunkSize");
            return this;
        }

        /** @param bytes path MTU: 256, 512, 1024, 2048 or 4096; default 4096 @return this */
        public Builder mtu(int bytes) {
            if (Integer.bitCount(bytes) != 1 || bytes < 256 || bytes > 4096) {
                throw new IllegalArgumentException("mtu must be 256, 512, 1024, 2048 or 4096: " + bytes);
            }
            this.mtu = bytes;
            return this;
        }

        /** @param exponent QP ACK timeout, 4.096 us x 2^exponent, 1..31; default 14 (67 ms) @return this */
        public Builder ackTimeout(int exponent) {
            if (exponent < 1 || exponent > 31) {
                throw new IllegalArgumentException("ackTimeout must be 1..31: " + exponent);
            }
            this.ackTimeout = exponent;
            return this;
        }

        /** @param n QP retry count 0..7; default 7 @return this */
        public Builder retryCount(int n) {
            if (n < 0 || n > 7) {
                throw new IllegalArgumentException("retryCount must be 0..7: " + n);
            }
            this.retryCount = n;
            return this;
        }

        /** @param n QP RNR retry count 0..7 (7 = infinite); default 7 @return this */
        public Builder rnrRetry(int n) {
            if (n < 0 || n > 7) {
                throw new IllegalArgumentException("rnrRetry must be 0..7: " + n);
            }
            this.rnrRetry = n;
            return this;
        }

        /** @param n receive slots pre-posted for small (unsplit) MP_SENDs, placement notices and the reassembly's control messages (at least 3: the last credit is kept for control messages), each {@link #smallMessageSlotBytes} (at most the split threshold); default 16 (256 KiB of registered memory per connection end at the default slot size; the credits a peer has for small sends and notices in flight; with 8, re-sends after a path failure emptied the SRQ on rxe, docs/rxe-interop.md) @return this */
        public Builder smallMessageSlots(int n) {
            this.smallMessageSlots = atLeast(n, 3, "smallMessageSlots");
            return this;
        }

        /**
         * @param bytes size of each small-message slot, {@value #MIN_SLOT_BYTES}..{@value
         *     #MAX_SLOT_BYTES}: an MP_SEND below the split threshold that fits the peer's slot lands
         *     in a slot with one RDMA packet train and is copied into the matching MP_RECV; a larger
         *     one goes whole on one path into the advertised MP_RECV and is announced by a placement
         *     notice (no copy, one more packet); a connection uses the smaller of this and the split
         *     threshold; default 16 KiB (16 slots: 256 KiB of registered memory per connection end)
         * @return this
         * @since 1.3
         */
        public Builder smallMessageSlotBytes(int bytes) {
            if (bytes < MIN_SLOT_BYTES || bytes > MAX_SLOT_BYTES) {
                throw new IllegalArgumentException("smallMessageSlotBytes must be " + MIN_SLOT_BYTES + ".."
                        + MAX_SLOT_BYTES + ": " + bytes);
            }
            this.smallMessageSlotBytes = bytes;
            return this;
        }

        /** @return the options */
        public ConnectOptions build() {
            return new ConnectOptions(this);
        }

        private static int atLeast(int v, int min, String name) {
            if (v < min) {
                throw new IllegalArgumentException(name + " must be >= " + min + ": " + v);
            }
            return v;
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive: " + d);
            }
            return d;
        }
    }
}
