package dev.virtuoso.commands.demo;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import dev.virtuoso.api.Access;
import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.api.MemoryRegion;
import dev.virtuoso.api.MultipathConnection;
import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.api.MultipathListener;

/**
 * Two endpoints of one multipath connection in this process: a listener on a loopback bootstrap
 * port with the server's vNICs, a client connected to it with its own, and a registered ring on
 * each side. Closing it disconnects both ends and releases everything.
 */
public final class EndpointPair implements AutoCloseable {
    private final MultipathListener listener;
    private final MultipathConnection client;
    private final MultipathConnection server;
    private final Transfer.Side clientSide;
    private final Transfer.Side serverSide;

    private EndpointPair(MultipathListener listener, MultipathConnection client, MultipathConnection server,
            Transfer.Side clientSide, Transfer.Side serverSide) {
        this.listener = listener;
        this.client = client;
        this.server = server;
        this.clientSide = clientSide;
        this.serverSide = serverSide;
    }

    /**
     * Connects a pair and registers a ring of {@code ringBytes} on each side.
     *
     * @param connector the connector service
     * @param base options both sides share (provider, policies, ...)
     * @param clientDevice device of the client
     * @param clientVnics the client's path addresses
     * @param serverDevice device of the server
     * @param serverVnics the server's path addresses (paired in order)
     * @param ringBytes size of each ring
     * @return the connected pair
     * @throws IOException if listening, connecting, accepting or registering fails
     * @throws InterruptedException if interrupted
     */
    public static EndpointPair open(MultipathConnector connector, ConnectOptions base, String clientDevice,
            List<InetAddress> clientVnics, String serverDevice, List<InetAddress> serverVnics, int ringBytes)
            throws IOException, InterruptedException {
        ConnectOptions serverOptions = base.toBuilder().device(serverDevice).localAddresses(serverVnics).build();
        ConnectOptions clientOptions = base.toBuilder().device(clientDevice).localAddresses(clientVnics)
                .remoteAddresses(serverVnics).build();
        MultipathListener listener = connector.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                serverOptions);
        MultipathConnection client = null;
        MultipathConnection server = null;
        try {
            client = connector.connect(listener.localAddress(), clientOptions);
            server = listener.accept(base.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
            if (server == null) {
                throw new IOException("the listener accepted no connection within " + base.handshakeTimeout());
            }
            ByteBuffer src = ByteBuffer.allocateDirect(ringBytes);
            ByteBuffer dst = ByteBuffer.allocateDirect(ringBytes);
            MemoryRegion srcRegion = client.register(src, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion dstRegion = server.register(dst, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            return new EndpointPair(listener, client, server, new Transfer.Side(client, srcRegion, src),
                    new Transfer.Side(server, dstRegion, dst));
        } catch (IOException | InterruptedException | RuntimeException e) {
            if (client != null) {
                client.close();
            }
            if (server != null) {
                server.close();
            }
            listener.close();
            throw e;
        }
    }

    /** @return the sending side */
    public Transfer.Side client() {
        return clientSide;
    }

    /** @return the receiving side */
    public Transfer.Side server() {
        return serverSide;
    }

    /** @return the client connection */
    public MultipathConnection clientConnection() {
        return client;
    }

    /** Deregisters both rings, disconnects both ends, closes the listener. Idempotent. */
    @Override
    public void close() {
        clientSide.region().close();
        serverSide.region().close();
        client.disconnect(5, TimeUnit.SECONDS);
        server.disconnect(5, TimeUnit.SECONDS);
        listener.close();
    }
}
