package dev.virtuoso.policy.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * TCP ping-pong (TCP_NODELAY, blocking reads): the kernel's latency for the same sizes, over
 * loopback in one process ({@link #run}) or between two processes ({@link LatencyPeer}).
 */
final class TcpPingPong {
    private TcpPingPong() {
    }

    /** Both ends in this process, over loopback. */
    static long[] run(int size, int iterations) throws Exception {
        try (ServerSocket ss = new ServerSocket()) {
            ss.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            ss.setSoTimeout(10_000);
            Thread echo = new Thread(() -> {
                try (Socket s = ss.accept()) {
                    echo(s, size, MpPingPong.total(iterations));
                } catch (IOException e) {
                    // the client reports the failure (its read times out)
                }
            }, "latency-bench-tcp-echo");
            echo.setDaemon(true);
            echo.start();
            long[] samples;
            try (Socket s = new Socket()) {
                s.connect(ss.getLocalSocketAddress(), 10_000);
                samples = measure(s, size, iterations);
            }
            echo.join(10_000);
            return samples;
        }
    }

    /** @return half round trips in nanoseconds, after a tenth of the iterations as warm-up */
    static long[] measure(Socket s, int size, int iterations) throws IOException {
        s.setTcpNoDelay(true);
        s.setSoTimeout(10_000);
        int warm = iterations / 10;
        int total = warm + iterations;
        long[] samples = new long[iterations];
        DataInputStream in = new DataInputStream(s.getInputStream());
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        byte[] buf = new byte[size];
        for (int i = 0; i < total; i++) {
            long t0 = System.nanoTime();
            out.write(buf);
            out.flush();
            in.readFully(buf);
            long t = System.nanoTime() - t0;
            if (i >= warm) {
                samples[i - warm] = t / 2;
            }
        }
        return samples;
    }

    /** Answers {@code total} messages of {@code size} bytes. */
    static void echo(Socket s, int size, int total) throws IOException {
        s.setTcpNoDelay(true);
        s.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(s.getInputStream());
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        byte[] buf = new byte[size];
        for (int i = 0; i < total; i++) {
            in.readFully(buf);
            out.write(buf);
            out.flush();
        }
    }
}
