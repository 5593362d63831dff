package com.example.virtuoso;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.options;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MpCompletion;
import dev.virtuoso.api.MpStatus;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;
import dev.virtuoso.paxexam.VirtuosoOptions;

/**
 * Boots Felix with Virtuoso on a two-path in-process fabric (hosts a and b), connects a to b
 * through the MultipathConnector service and checks an 8 MiB MP_WRITE byte for byte.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class EmbeddingExampleTest {

    @Inject
    private MultipathConnector connector;

    @Configuration
    public Option[] config() {
        return options(
                junitBundles(),
                VirtuosoOptions.osgiRuntime(),
                VirtuosoOptions.core(),
                VirtuosoOptions.softFabric(VirtuosoOptions.twoHostFabric(2, "rate=1g")),
                VirtuosoOptions.policies());
    }

    @Test
    public void connectsOverTwoPathsAndWrites() throws Exception {
        int bytes = 8 << 20;
        // listen and connect wait (ConnectOptions.providerTimeout, 5 s) for the configured devices
        try (MultipathListener listener = connector.listen(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                ConnectOptions.builder().device("b").build())) {
            MultipathConnection client = connector.connect(listener.localAddress(),
                    ConnectOptions.builder().device("a").loadBalancer("lb-roundrobin").build());
            MultipathConnection server = listener.accept(10, TimeUnit.SECONDS);
            assertNotNull("no connection accepted", server);
            assertEquals("one path per vNIC pair", 2, client.pathStats().size());

            EnumSet<Access> access = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            ByteBuffer source = ByteBuffer.allocateDirect(bytes);
            ByteBuffer target = ByteBuffer.allocateDirect(bytes);
            byte[] pattern = new byte[bytes];
            ThreadLocalRandom.current().nextBytes(pattern);
            source.put(pattern).clear();
            MemoryRegion local = client.register(source, access);
            MemoryRegion remote = server.register(target, access);

            client.postWrite(1, local, 0, bytes, remote.remote(), 0);
            MpCompletion done = new MpCompletion();
            assertTrue("MP_WRITE did not complete in 30 s", client.awaitCompletion(done, 30, TimeUnit.SECONDS));
            assertEquals(done.toString(), MpStatus.SUCCESS, done.status());
            assertEquals("first differing byte", -1, source.mismatch(target));

            client.disconnect(5, TimeUnit.SECONDS);
            server.disconnect(5, TimeUnit.SECONDS);
        }
    }
}
