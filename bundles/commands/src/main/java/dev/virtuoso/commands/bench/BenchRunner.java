package dev.virtuoso.commands.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.util.List;

import dev.virtuoso.commands.VirtuosoServices;

/** Entry of the bench: the client side if a host was given, else the server side. */
public final class BenchRunner {

    private BenchRunner() {
    }

    /**
     * @param services the commands' services
     * @param o the options
     * @param out where the report goes
     * @return the client's rows (empty on the server)
     * @throws IOException if the run fails
     * @throws InterruptedException if interrupted
     */
    public static List<BenchResult> run(VirtuosoServices services, BenchOptions o, PrintStream out)
            throws IOException, InterruptedException {
        if (o.client()) {
            return BenchClient.run(services, o, out);
        }
        BenchServer.run(services, o, out);
        return List.of();
    }
}
