package dev.virtuoso.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

class TypedPropertiesTest {

    private static TypedProperties of(Object... kv) {
        Map<String, Object> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], kv[i + 1]);
        }
        return TypedProperties.of(m);
    }

    private static void assertBad(String key, String shownValue, Runnable read) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, read::run);
        assertTrue(e.getMessage().contains(key), e.getMessage());
        assertTrue(e.getMessage().contains(shownValue), e.getMessage());
    }

    @Test
    void absentAndNullGiveTheDefault() {
        TypedProperties p = of("n", null);
        assertEquals(7L, p.getLong("n", 7));
        assertEquals(7, p.getInt("missing", 7));
        assertEquals(0.5, p.getDouble("n", 0.5));
        assertTrue(p.getBoolean("n", true));
        assertEquals("d", p.getString("n", "d"));
        assertEquals(TimeUnit.SECONDS, p.getEnum("n", TimeUnit.class, TimeUnit.SECONDS));
        assertFalse(p.contains("n"));
        assertTrue(of("n", 1).contains("n"));
        assertEquals(3L, TypedProperties.of(null).getLong("x", 3));
    }

    @Test
    void longsFromNumbersAndText() {
        assertEquals(5L, of("k", 5).getLong("k", 0));
        assertEquals(Long.MAX_VALUE, of("k", Long.MAX_VALUE).getLong("k", 0));
        assertEquals(-12L, of("k", " -12 ").getLong("k", 0));
        assertEquals(1000L, of("k", "1e3").getLong("k", 0));
        assertEquals(4L, of("k", 4.0).getLong("k", 0));
        assertEquals(9L, of("k", BigInteger.valueOf(9)).getLong("k", 0));
        assertEquals(9L, of("k", new BigDecimal("9.00")).getLong("k", 0));
        assertEquals(3L, of("k", (short) 3).getLong("k", 0));
        assertEquals(3L, of("k", (byte) 3).getLong("k", 0));
    }

    @Test
    void longErrorsNameKeyAndValue() {
        assertBad("k", "\"x\"", () -> of("k", "x").getLong("k", 0));
        assertBad("k", "\"1.5\"", () -> of("k", "1.5").getLong("k", 0));
        assertBad("k", "2.5", () -> of("k", 2.5).getLong("k", 0));
        assertBad("k", "NaN", () -> of("k", Double.NaN).getLong("k", 0));
        assertBad("k", "\"\"", () -> of("k", "").getLong("k", 0));
        assertBad("k", "true", () -> of("k", true).getLong("k", 0));
        assertBad("k", "99999999999999999999",
                () -> of("k", new BigInteger("99999999999999999999")).getLong("k", 0));
    }

    @Test
    void intsMustFitAnInt() {
        assertEquals(Integer.MAX_VALUE, of("k", "2147483647").getInt("k", 0));
        assertEquals(Integer.MIN_VALUE, of("k", (long) Integer.MIN_VALUE).getInt("k", 0));
        assertBad("k", "2147483648", () -> of("k", 2147483648L).getInt("k", 0));
        assertBad("k", "\"-2147483649\"", () -> of("k", "-2147483649").getInt("k", 0));
        assertBad("k", "\"seven\"", () -> of("k", "seven").getInt("k", 0));
    }

    @Test
    void doubles() {
        assertEquals(2.5, of("k", "2.5").getDouble("k", 0));
        assertEquals(3.0, of("k", 3).getDouble("k", 0));
        assertBad("k", "\"abc\"", () -> of("k", "abc").getDouble("k", 0));
        assertBad("k", "Infinity", () -> of("k", Double.POSITIVE_INFINITY).getDouble("k", 0));
        assertBad("k", "\"NaN\"", () -> of("k", "NaN").getDouble("k", 0));
        assertBad("k", "false", () -> of("k", false).getDouble("k", 0));
    }

    @Test
    void booleansAreTrueOrFalseOnly() {
        assertTrue(of("k", Boolean.TRUE).getBoolean("k", false));
        assertTrue(of("k", " TRUE ").getBoolean("k", false));
        assertFalse(of("k", "False").getBoolean("k", true));
        assertBad("k", "\"yes\"", () -> of("k", "yes").getBoolean("k", false));
        assertBad("k", "\"1\"", () -> of("k", "1").getBoolean("k", false));
        assertBad("k", "1", () -> of("k", 1).getBoolean("k", false));
        assertBad("k", "\"\"", () -> of("k", "").getBoolean("k", false));
    }

    @Test
    void stringsAreTrimmedAndBlankIsAbsent() {
        assertEquals("soft", of("k", " soft ").getString("k", "d"));
        assertEquals("d", of("k", "  ").getString("k", "d"));
        assertEquals("42", of("k", 42).getString("k", "d"));
    }

    @Test
    void enumsIgnoreCase() {
        assertEquals(TimeUnit.MILLISECONDS, of("k", "milliseconds").getEnum("k", TimeUnit.class, null));
        assertEquals(TimeUnit.DAYS, of("k", TimeUnit.DAYS).getEnum("k", TimeUnit.class, null));
        assertEquals(TimeUnit.DAYS, of("k", "").getEnum("k", TimeUnit.class, TimeUnit.DAYS));
        assertBad("k", "\"fortnights\"", () -> of("k", "fortnights").getEnum("k", TimeUnit.class, null));
    }

    @Test
    void singleElementContainersStandForTheirElement() {
        assertEquals(8L, of("k", new String[] {"8"}).getLong("k", 0));
        assertEquals("a", of("k", List.of("a")).getString("k", "d"));
        assertTrue(of("k", new Boolean[] {true}).getBoolean("k", false));
        assertBad("k", "[a, b]", () -> of("k", new String[] {"a", "b"}).getString("k", "d"));
        assertBad("k", "[]", () -> of("k", List.of()).getLong("k", 0));
        assertThrows(IllegalArgumentException.class, () -> of("k", new int[] {1}).getLong("k", 0));
    }

    @Test
    void prefixedReadsFullKeysAndNamesThemInErrors() {
        TypedProperties p = of("lb-adaptive.exploreEvery", "16", "exploreEvery", "99", "lb-adaptive.tailAware", "maybe")
                .prefixed("lb-adaptive.");
        assertEquals(16, p.getInt("exploreEvery", 0));
        assertEquals("lb-adaptive.x", p.fullKey("x"));
        assertBad("lb-adaptive.tailAware", "\"maybe\"", () -> p.getBoolean("tailAware", true));
        assertEquals(1, p.prefixed("sub.").getInt("n", 1));
        assertEquals("lb-adaptive.sub.n", p.prefixed("sub.").fullKey("n"));
    }
}
