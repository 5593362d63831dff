package dev.virtuoso.commands;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.commands.bench.BenchOptions;
import dev.virtuoso.commands.bench.BenchRunner;
import dev.virtuoso.commands.cli.ParsedArgs;

/**
 * {@code virtuoso:bench} (the launcher's {@code virtuoso bench}): a perftest-style bandwidth test,
 * or with {@code --lat} a latency test; server without a host, client with the server's host. A run
 * is interrupted when the component stops (as the demo is).
 */
@Component(service = BenchCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=bench"})
public class BenchCommand {

    @Reference
    private VirtuosoServices services;

    private final CommandThreads running = new CommandThreads();

    /**
     * Runs one side of the bench.
     *
     * @param args options and, for the client, the server's host ({@code --help} lists them)
     * @throws Exception if the run fails
     */
    public void bench(String... args) throws Exception {
        ParsedArgs a = BenchOptions.SPEC.parse(args);
        if (a.help()) {
            System.out.print(BenchOptions.SPEC.usage());
            return;
        }
        running.run("bench", "no results were reported",
                () -> BenchRunner.run(services, BenchOptions.from(a), System.out));
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        running.stop();
    }
}
