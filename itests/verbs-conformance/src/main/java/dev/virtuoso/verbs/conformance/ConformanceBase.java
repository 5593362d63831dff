package dev.virtuoso.verbs.conformance;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

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
