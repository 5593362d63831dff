package dev.virtuoso.commands;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.scale.ScaleOptions;
import dev.virtuoso.commands.scale.ScaleRunner;

/**
 * {@code virtuoso:scale} (the launcher's {@code virtuoso scale}): opens many connections between two
 * endpoints of this process and reports throughput, CPU, threads, memory and setup cost per
 * connection beside {@code iperf3 -P N} (docs/scale.md).
 */
@Component(service = ScaleCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=scale"})
public class ScaleCommand {

    @Reference
    private VirtuosoServices services;

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
        ScaleRunner.run(services, ScaleOptions.from(a), System.out);
    }
}
