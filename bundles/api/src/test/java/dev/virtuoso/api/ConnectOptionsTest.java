package dev.virtuoso.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.time.Duration;

import org.junit.jupiter.api.Test;

class ConnectOptionsTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        ConnectOptions o = ConnectOptions.builder().build();
        assertNull(o.provider());
        assertEquals(ConnectOptions.DEFAULT_POLICY, o.loadBalancer());
        assertEquals(ConnectOptions.DEFAULT_POLICY, o.congestionAvoidance());
        assertEquals(ConnectOptions.BUILTIN_ROUND_ROBIN, o.fallbackLoadBalancer());
        assertEquals(ConnectOptions.BUILTIN_FIXED_CHUNK, o.fallbackCongestionAvoidance());
        assertEquals(4096, o.mtu());
        assertEquals(7, o.retryCount());
        assertEquals(7, o.rnrRetry());
        assertEquals(14, o.ackTimeout());
        assertEquals(Duration.ofSeconds(10), o.handshakeTimeout());
        assertEquals(Duration.ofSeconds(5), o.providerTimeout());
        assertNull(o.sharedSecret());
        assertEquals(0, o.localAddresses().size());
    }

    @Test
    void rejectsInvalidValuesWithClearMessages() {
        ConnectOptions.Builder b = ConnectOptions.builder();
        assertEquals("mtu must be 256, 512, 1024, 2048 or 4096: 1500",
                assertThrows(IllegalArgumentException.class, () -> b.mtu(1500)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.retryCount(8));
        assertThrows(IllegalArgumentException.class, () -> b.rnrRetry(-1));
        assertThrows(IllegalArgumentException.class, () -> b.ackTimeout(0));
        assertThrows(IllegalArgumentException.class, () -> b.maxOutstanding(0));
        assertThrows(IllegalArgumentException.class, () -> b.splitThreshold(-1));
        assertThrows(IllegalArgumentException.class, () -> b.handshakeTimeout(Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> b.providerTimeout(Duration.ofMillis(-1)));
        assertEquals(Duration.ZERO, b.providerTimeout(Duration.ZERO).build().providerTimeout());
        assertThrows(IllegalArgumentException.class, () -> b.sharedSecret(new byte[0]));
        assertThrows(NullPointerException.class, () -> b.loadBalancer(null));
    }

    @Test
    void secretIsCopiedInAndOut() {
        byte[] secret = {1, 2, 3};
        ConnectOptions o = ConnectOptions.builder().sharedSecret(secret).build();
        secret[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, o.sharedSecret());
        assertNotSame(o.sharedSecret(), o.sharedSecret());
    }

    @Test
    void toBuilderRoundTrips() throws Exception {
        InetAddress a = InetAddress.getByName("10.0.0.1");
        ConnectOptions o = ConnectOptions.builder().provider("soft").localAddresses(a).mtu(1024)
                .loadBalancer("lb-adaptive").policyProperty("k", 5).chunkSize(4096)
                .providerTimeout(Duration.ofMillis(250)).build();
        ConnectOptions c = o.toBuilder().build();
        assertEquals(o.toString(), c.toString());
        assertEquals(5, c.policyProperties().get("k"));
        assertEquals(4096, c.chunkSize());
        assertEquals(Duration.ofMillis(250), c.providerTimeout());
    }
}
