package dev.virtuoso.commands;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Dictionary;
import java.util.Hashtable;

import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.api.SecretFile;
import dev.virtuoso.commands.cli.CommandLineSpec;
import dev.virtuoso.commands.cli.ParsedArgs;

/**
 * {@code virtuoso:secret}: shows, sets or clears the bootstrap shared-secret file of the connector
 * ({@code secretFile} of its ConfigAdmin configuration), used by every listen and connect whose
 * options carry no secret of their own (demo, testbed and bench connections included).
 */
@Component(service = SecretCommand.class, immediate = true,
    property = {"osgi.command.scope=virtuoso", "osgi.command.function=secret"})
public class SecretCommand {
    /** The connector's configuration PID (dev.virtuoso.qpmanager.internal.ConnectorComponent.PID). */
    public static final String CONNECTOR_PID = "dev.virtuoso.qpmanager";
    static final String PROPERTY = "secretFile";

    private static final CommandLineSpec SPEC = new CommandLineSpec("secret", "[FILE]", 0, 1)
            .flag((char) 0, "clear", "remove the secret: connections without one of their own are not authenticated");

    @Reference
    private VirtuosoServices services;

    /**
     * @param args {@code FILE} to set, {@code --clear} to remove, nothing to show
     * @throws IOException if the file is unfit or the configuration cannot be written
     */
    public void secret(String... args) throws IOException {
        ParsedArgs a = SPEC.parse(args);
        PrintStream out = System.out;
        if (a.help()) {
            out.print(SPEC.usage());
            return;
        }
        Path file = a.positionals().isEmpty() ? null : Path.of(a.positionals().get(0));
        if (a.flag("clear") && file != null) {
            throw new IllegalArgumentException("give a FILE or --clear, not both");
        }
        out.println(apply(services.configAdmin(), file, a.flag("clear")));
    }

    /**
     * @param ca the ConfigurationAdmin service
     * @param file the secret file to set (checked first), or {@code null}
     * @param clear whether to remove the secret
     * @return what the connector's configuration now says
     * @throws IOException if the file is unfit or the configuration cannot be written
     */
    static String apply(ConfigurationAdmin ca, Path file, boolean clear) throws IOException {
        Configuration c = ca.getConfiguration(CONNECTOR_PID, "?");
        Dictionary<String, Object> props = c.getProperties();
        Object current = props == null ? null : props.get(PROPERTY);
        if (file == null && !clear) {
            return current == null || current.toString().isBlank() ? "no bootstrap secret configured"
                    : "bootstrap secret file: " + current;
        }
        if (file != null) {
            SecretFile.read(file);
        }
        Hashtable<String, Object> next = new Hashtable<>();
        if (props != null) {
            for (var keys = props.keys(); keys.hasMoreElements();) {
                String k = keys.nextElement();
                next.put(k, props.get(k));
            }
        }
        next.put(PROPERTY, clear ? "" : file.toAbsolutePath().toString());
        c.update(next);
        return clear ? "bootstrap secret cleared" : "bootstrap secret file: " + file.toAbsolutePath();
    }
}
