package dev.virtuoso.launcher;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.LogManager;

import org.osgi.framework.Bundle;

/**
 * Entry point of the {@code virtuoso} command: parses the launcher's arguments, boots an embedded
 * OSGi framework with the features the subcommand needs, runs the subcommand's Gogo function (or
 * the interactive shell) and stops the framework. Exit status: 0 success, 1 failure, 2 bad usage.
 */
public final class Main {

    /** Exit status of a successful run. */
    public static final int OK = 0;
    /** Exit status when the subcommand or the runtime failed. */
    public static final int FAILED = 1;
    /** Exit status for a wrong command line. */
    public static final int USAGE = 2;

    /** Printed when the shell starts: every command of scope virtuoso, by the bundle that has it. */
    static final String SHELL_BANNER = "Virtuoso shell. Commands of scope virtuoso (each takes --help):\n"
            + "  vnics, connections, policy, path, link, testbed, demo, bench, scale, secret (virtuoso-commands)\n"
            + "  policies, loadbalancer, congestionavoidance                     (policy binding)\n"
            + "  monitor, probe                                                  (path monitor)\n"
            + "  chunksizes                                                      (cc-chunkprobe)\n"
            + "`help` lists every command; leave with `exit [STATUS]` or Ctrl-D.";

    /** How long the launcher waits for the subcommand's service after the bundles started. */
    private static final long COMMAND_WAIT_MILLIS = 15_000;

    private Main() {
    }

    /**
     * Runs the command and exits the JVM with its status.
     *
     * @param argv command line
     */
    public static void main(String[] argv) {
        System.exit(run(argv, System.out, System.err));
    }

    /**
     * Runs the command.
     *
     * @param argv command line
     * @param out where usage goes when asked for
     * @param err where errors go
     * @return the exit status
     */
    public static int run(String[] argv, PrintStream out, PrintStream err) {
        LauncherArgs args;
        try {
            args = LauncherArgs.parse(argv);
        } catch (UsageException e) {
            err.println("virtuoso: " + e.getMessage());
            err.print(LauncherArgs.usage());
            return USAGE;
        }
        if (args.helpOnly()) {
            out.print(LauncherArgs.usage());
            return OK;
        }
        String name = "virtuoso " + args.subcommand().cliName();
        configureLogging(args.verbose());
        List<FeatureBundle> bundles;
        Set<String> optional = new HashSet<>();
        StagedBundles staged;
        try {
            staged = new StagedBundles(bundlesDir());
            Features repo = Features.load();
            for (String f : args.extraFeatures()) {
                if (!repo.names().contains(f)) {
                    err.println(name + ": unknown feature '" + f + "' (features: " + String.join(", ", repo.names()) + ")");
                    return USAGE;
                }
            }
            List<String> features = new ArrayList<>(args.subcommand().features());
            features.addAll(args.extraFeatures());
            List<FeatureBundle> needed = repo.bundlesFor(features);
            // optional features last: a bundle this JVM cannot run is left out (a named one is not)
            for (String f : args.subcommand().optionalFeatures()) {
                if (!features.contains(f)) {
                    features.add(f);
                }
            }
            bundles = repo.bundlesFor(features);
            for (FeatureBundle b : bundles) {
                if (!needed.contains(b)) {
                    optional.add(b.location());
                }
            }
        } catch (IOException e) {
            err.println(name + ": " + e.getMessage());
            return FAILED;
        }
        return boot(args, name, bundles, optional, staged, err);
    }

    private static int boot(LauncherArgs args, String name, List<FeatureBundle> bundles, Set<String> optional,
            StagedBundles staged, PrintStream err) {
        Map<String, String> props = new HashMap<>();
        props.put("virtuoso.home", System.getProperty("virtuoso.home", Path.of("").toAbsolutePath().toString()));
        EmbeddedFramework fw;
        try {
            fw = EmbeddedFramework.start(props, args.verbose());
        } catch (IOException e) {
            err.println(name + ": " + e.getMessage());
            return FAILED;
        }
        Thread hook = new Thread(fw::close, "virtuoso-launcher-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            LauncherConfigs configs = new LauncherConfigs(args.configs());
            List<Bundle> installed = fw.installAndStart(bundles, optional, staged, configs);
            if (!args.configs().isEmpty() && !configs.applied()) {
                err.println(name + ": --config: Configuration Admin (" + LauncherConfigs.CONFIG_ADMIN_BUNDLE
                        + ") is not among the started bundles");
                return FAILED;
            }
            if (args.verbose()) {
                for (Bundle b : installed) {
                    err.println("[launcher] " + b.getSymbolicName() + " " + b.getVersion() + " state " + b.getState());
                }
                for (String s : fw.skipped()) {
                    err.println("[launcher] " + s);
                }
            }
            if (args.subcommand().function() == null) {
                ExitCommand exit = new ExitCommand(fw.context());
                exit.register();
                err.println(SHELL_BANNER);
                fw.awaitStop();
                return exit.status();
            }
            Object result = CommandInvoker.invoke(fw.context(), Subcommand.SCOPE, args.subcommand().function(),
                    args.args().toArray(String[]::new), COMMAND_WAIT_MILLIS);
            return result instanceof Integer code ? code : OK;
        } catch (CommandInvoker.CommandFailed e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalArgumentException) {
                err.println(name + ": " + cause.getMessage());
                err.println("try `" + name + " --help`");
                return USAGE;
            }
            err.println(name + ": error: " + describe(cause));
            if (args.verbose()) {
                cause.printStackTrace(err);
            }
            return FAILED;
        } catch (IOException | IllegalStateException e) {
            err.println(name + ": " + e.getMessage());
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println(name + ": interrupted");
            return FAILED;
        } finally {
            fw.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is already shutting down; the hook runs close() again, which is idempotent
            }
        }
    }

    /**
     * Virtuoso's own warnings (a peer's protocol violation, a path monitor or policy fault, a
     * provider error, a capped UDP buffer) reach the terminal; other libraries' logging (JLine, the
     * DiSNI probe) below SEVERE is noise for a command-line user. {@code --verbose} shows INFO of
     * both. A logging configuration of the user's own ({@code -Djava.util.logging.config.file},
     * e.g. {@code dev.virtuoso.level=FINE} for the core's path events) is left as it is.
     */
    static void configureLogging(boolean verbose) {
        if (System.getProperty("java.util.logging.config.file") != null) {
            return;
        }
        Level virtuoso = verbose ? Level.INFO : Level.WARNING;
        Level others = verbose ? Level.INFO : Level.SEVERE;
        String config = "handlers=java.util.logging.ConsoleHandler\n"
                + ".level=" + others.getName() + "\n"
                + "java.util.logging.ConsoleHandler.level=" + virtuoso.getName() + "\n"
                + "dev.virtuoso.level=" + virtuoso.getName() + "\n";
        try {
            LogManager.getLogManager().readConfiguration(new ByteArrayInputStream(config.getBytes(StandardCharsets.UTF_8)));
        } catch (IOException e) {
            throw new UncheckedIOException("logging configuration", e);
        }
    }

    /** @return the message and the messages of the causes, without stack traces */
    static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder(t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName());
        for (Throwable c = t.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null && !sb.toString().contains(c.getMessage())) {
                sb.append(": ").append(c.getMessage());
            }
        }
        return sb.toString();
    }

    /** @return the staged bundle directory: {@code virtuoso.bundles}, else {@code bundles/} beside the launcher jar */
    static Path bundlesDir() throws IOException {
        String override = System.getProperty("virtuoso.bundles");
        if (override != null) {
            return Path.of(override);
        }
        try {
            Path code = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return code.getParent().resolve("bundles");
        } catch (URISyntaxException | SecurityException | NullPointerException e) {
            throw new IOException("cannot locate the launcher jar; set -Dvirtuoso.bundles=DIR", e);
        }
    }
}
