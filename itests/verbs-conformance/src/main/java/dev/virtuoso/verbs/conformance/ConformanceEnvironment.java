package dev.virtuoso.verbs.conformance;

import dev.virtuoso.spi.verbs.IbvContext;
import dev.virtuoso.spi.verbs.IbvMtu;

/**
 * What a verbs provider gives the conformance suite: two devices ("A" and "B") that can reach each
 * other, plus optional fault controls. The soft RNIC implements it over its in-process fabric and
 * over UDP; the DiSNI binding over two ports or hosts.
 *
 * <p>Each test opens fresh contexts with {@link #openA()} and {@link #openB()} and closes them at
 * its end. The fault controls act on the network between them; an environment that cannot emulate
 * one returns false and the tests that need it are skipped. Optional verbs behaviour is declared
 * through {@link #supports(Feature)}.
 */
public interface ConformanceEnvironment extends AutoCloseable {

    /** Opens a context on one device (for {@link #of}). */
    @FunctionalInterface
    interface Opener {
        /**
         * @return a new context (the caller closes it)
         * @throws Exception if the device cannot be opened
         */
        IbvContext open() throws Exception;
    }

    /**
     * A lossless environment without fault controls (only a loss rate of 0 can be set) over two
     * devices of a provider the test owns and closes itself.
     *
     * @param name for reports
     * @param a opens device A
     * @param b opens device B
     * @return the environment; closing it closes nothing
     */
    static ConformanceEnvironment of(String name, Opener a, Opener b) {
        return new ConformanceEnvironment() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public IbvContext openA() throws Exception {
                return a.open();
            }

            @Override
            public IbvContext openB() throws Exception {
                return b.open();
            }

            @Override
            public boolean setLossRate(double probability) {
                return probability == 0;
            }

            @Override
            public void close() {
                // the test owns the provider
            }
        };
    }

    /** @return a short name for reports, e.g. {@code soft/fabric} */
    String name();

    /**
     * @return a new context on device A (the caller closes it)
     * @throws Exception if the device cannot be opened
     */
    IbvContext openA() throws Exception;

    /**
     * @return a new context on device B (the caller closes it)
     * @throws Exception if the device cannot be opened
     */
    IbvContext openB() throws Exception;

    /**
     * Whether the provider offers an optional behaviour; the tests that need one it lacks are skipped
     * with a message naming it. The default, true, fits a provider with the full verbs semantics (the
     * soft RNIC); an environment returning false should say why in its documentation.
     *
     * @param feature the behaviour a test needs
     * @return true if the provider offers it
     */
    default boolean supports(Feature feature) {
        return true;
    }

    /**
     * @param feature a feature {@link #supports} denies
     * @return why the provider lacks it, for the skip message
     */
    default String unsupportedReason(Feature feature) {
        return "not offered by " + name();
    }

    /**
     * The local ACK timeout QPs between A and B really use, for tests that check retry timing.
     * Providers that apply the RTS attribute use what was asked (the default); over the RDMA CM the
     * connection manager chooses it, and the environment returns its value.
     *
     * @param requested the {@code timeout} exponent (4.096 us x 2^n) the suite sets at RTS
     * @return the exponent in effect
     */
    default int ackTimeoutInEffect(int requested) {
        return requested;
    }

    /** @return the path MTU QPs between A and B use */
    default IbvMtu mtu() {
        return IbvMtu.MTU_4096;
    }

    /**
     * Drops packets between A and B at random, in both directions.
     *
     * @param probability 0..1; 0 restores a loss-free network
     * @return false if this environment cannot emulate loss
     */
    boolean setLossRate(double probability);

    /**
     * Makes B vanish for A: nothing sent between them arrives any more. The default closes B's
     * context, which destroys its QPs (a real RNIC then drops their packets silently).
     *
     * @param b the context of device B in use by the test
     */
    default void vanish(IbvContext b) {
        b.close();
    }

    /** Undoes {@link #vanish} and {@link #setLossRate} for the next test (default: nothing). */
    default void restore() {
        setLossRate(0);
    }

    /**
     * @return how much longer than nominal a retransmit timeout may take here (hardware rounds
     *     timeouts up); the suite accepts up to {@code slack x nominal + 250 ms}
     */
    default double timeoutSlack() {
        return 3.0;
    }

    /** Releases everything the environment made. */
    @Override
    void close();
}
