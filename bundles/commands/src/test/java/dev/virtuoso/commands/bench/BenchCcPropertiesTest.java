package dev.virtuoso.commands.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.virtuoso.commands.cli.CommandError;

/** {@code --cc NAME[:KEY=VALUE,...]}: the policy's name and its properties. */
class BenchCcPropertiesTest {

    @Test
    void aPlainNameSetsNoProperties() {
        assertEquals("cc-fixed", BenchEndpoint.ccName("cc-fixed"));
        assertEquals(Map.of(), BenchEndpoint.ccProperties("cc-fixed"));
    }

    @Test
    void propertiesArePrefixedWithThePolicyName() {
        String cc = "cc-chunkprobe:window=2, levelChunks = 8";
        assertEquals("cc-chunkprobe", BenchEndpoint.ccName(cc));
        assertEquals(Map.of("cc-chunkprobe.window", "2", "cc-chunkprobe.levelChunks", "8"),
                BenchEndpoint.ccProperties(cc));
    }

    @Test
    void malformedPropertiesAreRejected() {
        for (String bad : new String[] {"cc-fixed:", "cc-fixed:chunkBytes", "cc-fixed:=4", "cc-fixed:a=1,", "cc-fixed:a="}) {
            assertThrows(CommandError.class, () -> BenchEndpoint.ccProperties(bad), bad);
        }
    }
}
