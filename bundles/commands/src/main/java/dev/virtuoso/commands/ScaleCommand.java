package dev.virtuoso.commands;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.scale.ScaleOptions;
import dev.virtuoso.commands.scale.ScaleRunner;

/**
 * {@code virtuoso:scale} (the launcher's {@code virtuoso scale}): opens many connections between two
 * endpoints of this process and reports throughput, CPU, threads, memory and setup cost per
 * connection beside {@code iperf3 -P N} (docs/scale.md). A run is interrupted when the component
 * stops (as the demo is).
 */
@Component(service = ScaleCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=scale"})
public class ScaleCommand {

    @Reference
    private VirtuosoServices services;

    private final CommandThreads running = new CommandThreads();

    /**
     * Runs the scale bench.
     *
     * @param args options ({@code --help} lists them)
     * @throws Exception if a run fails
     */
    public void scale(String... args) throws Exception {
        ParsedArgs a = ScaleOptions.SPEC.parse(args);
        if (a.help()) {
            System.out.print(ScaleOptions.SPEC.usage());
            return;
        }
        running.run("scale", "no results were reported",
                () -> ScaleRunner.run(services, ScaleOptions.from(a), System.out));
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        running.stop();
    }
}
