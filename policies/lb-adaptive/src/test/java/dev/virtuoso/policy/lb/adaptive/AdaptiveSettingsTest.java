package dev.virtuoso.policy.lb.adaptive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.spi.policy.PolicyContext;

class AdaptiveSettingsTest {
    private static final long MS = 1_000_000L;

    private static AdaptiveSettings settings(long chunkTime, long minChunk, int minInFlight, long queueTarget,
            long tau, int exploreEvery, long exploreIdle) {
        return new AdaptiveSettings(chunkTime, minChunk, minInFlight, queueTarget, tau, exploreEvery, exploreIdle, true);
    }

    private static PolicyContext ctx(Map<String, Object> props) {
        return new PolicyContext("c", props);
    }

    @Test
    void lowerBoundsAreAcceptedAndValuesBelowRejected() {
        assertEquals(1, settings(1, 1, 1, 0, 1, 0, 1).chunkTimeNanos());
        assertThrows(IllegalArgumentException.class, () -> settings(0, 1, 1, 0, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> settings(1, 0, 1, 0, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> settings(1, 1, 0, 0, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> settings(1, 1, 1, -1, 1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> settings(1, 1, 1, 0, 0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> settings(1, 1, 1, 0, 1, -1, 1));
        assertThrows(IllegalArgumentException.class, () -> settings(1, 1, 1, 0, 1, 0, 0));
    }

    @Test
    void configDefaultsAreReadInMilliseconds() {
        AdaptiveSettings s = AdaptiveSettings.of(new AdaptiveConfig() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return AdaptiveConfig.class;
            }

            @Override
            public long chunkTimeMillis() {
                return 20;
            }

            @Override
            public long minChunkBytes() {
                return 65536;
            }

            @Override
            public int minInFlightChunks() {
                return 2;
            }

            @Override
            public long queueTargetMillis() {
                return 10;
            }

            @Override
            public long rateTimeConstantMillis() {
                return 100;
            }

            @Override
            public int exploreEvery() {
                return 64;
            }

            @Override
            public long exploreIdleMillis() {
                return 250;
            }

            @Override
            public boolean tailAware() {
                return false;
            }
        });
        assertEquals(new AdaptiveSettings(20 * MS, 65536, 2, 10 * MS, 100 * MS, 64, 250 * MS, false), s);
    }

    @Test
    void noPropertiesKeepEverySetting() {
        AdaptiveSettings s = new AdaptiveSettings(20 * MS, 65536, 2, 10 * MS, 100 * MS, 64, 250 * MS, false);
        assertEquals(s, s.with(ctx(Map.of())));
    }

    @Test
    void propertiesOverrideInTheirUnits() {
        AdaptiveSettings s = settings(20 * MS, 65536, 2, 10 * MS, 100 * MS, 64, 250 * MS).with(ctx(Map.of(
                "lb-adaptive.chunkTimeMillis", 5, "lb-adaptive.queueTargetMillis", 0,
                "lb-adaptive.rateTimeConstantMillis", 7, "lb-adaptive.exploreIdleMillis", 9,
                "lb-adaptive.minChunkBytes", 4096, "lb-adaptive.minInFlightChunks", 3, "lb-adaptive.exploreEvery", 0)));
        assertEquals(new AdaptiveSettings(5 * MS, 4096, 3, 0, 7 * MS, 0, 9 * MS, true), s);
    }

    @Test
    void tailAwareAcceptsBooleansAndTheirNames() {
        AdaptiveSettings on = settings(MS, 1, 1, 0, MS, 0, MS);
        assertFalse(on.with(ctx(Map.of("lb-adaptive.tailAware", false))).tailAware());
        assertFalse(on.with(ctx(Map.of("lb-adaptive.tailAware", " FALSE "))).tailAware());
        AdaptiveSettings off = on.with(ctx(Map.of("lb-adaptive.tailAware", Boolean.FALSE)));
        assertTrue(off.with(ctx(Map.of("lb-adaptive.tailAware", true))).tailAware());
        assertTrue(off.with(ctx(Map.of("lb-adaptive.tailAware", "True"))).tailAware());
        assertFalse(off.with(ctx(Map.of())).tailAware(), "no property keeps the current value");
        assertThrows(IllegalArgumentException.class, () -> on.with(ctx(Map.of("lb-adaptive.tailAware", "yes"))));
    }

    @Test
    void policyIsNamedForItsProperties() {
        assertEquals("lb-adaptive", new AdaptivePolicy().name());
    }
}
