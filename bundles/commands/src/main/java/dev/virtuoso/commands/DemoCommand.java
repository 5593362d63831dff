package dev.virtuoso.commands;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.demo.DemoOptions;
import dev.virtuoso.commands.demo.DemoRunner;

/**
 * {@code virtuoso:demo} (the launcher's {@code virtuoso demo}): see {@link DemoRunner}. When the
 * component stops while a demo runs (the shell ended, the framework or the bundle stops), the demo
 * is interrupted, says so in one line and reports no result, and the component waits (bounded) for
 * it to close its connections. An interrupt of the command's thread (Ctrl-C, the shell stopping)
 * ends it the same way.
 */
@Component(service = DemoCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=demo"})
public class DemoCommand {

    @Reference
    private VirtuosoServices services;

    private final CommandThreads running = new CommandThreads();

    /**
     * Runs the demo.
     *
     * @param args the demo's options ({@code --help} lists them)
     * @throws Exception if the demo fails (a transfer, a verification, a missing service)
     */
    public void demo(String... args) throws Exception {
        ParsedArgs a = DemoOptions.SPEC.parse(args);
        if (a.help()) {
            System.out.print(DemoOptions.SPEC.usage());
            return;
        }
        running.run("demo", "the transfer did not finish and no results were written",
                () -> new DemoRunner(services, DemoOptions.from(a), System.out).run());
    }

    @Deactivate
    void deactivate() throws InterruptedException {
        running.stop();
    }
}
