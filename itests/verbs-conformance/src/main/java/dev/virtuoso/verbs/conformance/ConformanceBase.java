package dev.virtuoso.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

import dev.virtuoso.spi.verbs.IbvWc;
import dev.virtuoso.spi.verbs.IbvWcStatus;

/**
 * Base of every conformance test class: one {@link ConformanceEnvironment} per class (made by the
 * provider's concrete subclass), a fresh {@link Rig} per test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ConformanceBase {
    protected ConformanceEnvironment env;
    protected Rig rig;

    /**
     * @return the provider's environment; closed after the class's last test
     * @throws Exception if it cannot be set up
     */
    protected abstract ConformanceEnvironment createEnvironment() throws Exception;

    @BeforeAll
    void createEnv() throws Exception {
        env = createEnvironment();
    }

    @AfterAll
    void closeEnv() {
        if (env != null) {
            env.close();
        }
    }

    /**
     * Skips the calling test, naming the feature and the reason, unless the environment supports it.
     *
     * @param feature what the test needs
     */
    protected void assumeSupported(Feature feature) {
        assumeTrue(env.supports(feature),
                () -> env.name() + " does not support " + feature + ": " + env.unsupportedReason(feature));
    }

    /**
     * Checks a completion's status as the last step of a test. Where the environment lacks the
     * feature that defines the exact status, any error status is accepted and the test is then
     * reported as skipped, naming the status the provider returned (so the difference stays visible).
     *
     * @param feature the behaviour that defines {@code expected}
     * @param expected the status IBA asks for
     * @param wc the completion
     */
    protected void assertStatus(Feature feature, IbvWcStatus expected, IbvWc wc) {
        if (env.supports(feature)) {
            assertEquals(expected, wc.status(), wc.toString());
            return;
        }
        assertNotEquals(IbvWcStatus.SUCCESS, wc.status(), wc.toString());
        assumeTrue(expected == wc.status(), () -> env.name() + " does not support " + feature + ": "
                + env.unsupportedReason(feature) + "; this run: " + wc.status() + " instead of " + expected);
    }

    @BeforeEach
    void openRig(TestInfo info) throws Exception {
        rig = new Rig(env, info.getDisplayName().hashCode() * 31L + getClass().getName().hashCode());
    }

    @AfterEach
    void closeRig() {
        try {
            if (rig != null) {
                rig.close();
            }
        } finally {
            env.restore();
        }
    }
}
