package dev.virtuoso.commands;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.demo.DemoOptions;
import dev.virtuoso.commands.demo.DemoRunner;

/** {@code virtuoso:demo} (the launcher's {@code virtuoso demo}): see {@link DemoRunner}. */
@Component(service = DemoCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=demo"})
public class DemoCommand {

    @Reference
    private VirtuosoServices services;

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
        new DemoRunner(services, DemoOptions.from(a), System.out).run();
    }
}
