package dev.virtuoso.commands;

import java.io.PrintStream;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.virtuoso.api.ConnectOptions;
import dev.virtuoso.commands.cli.CommandError;
import dev.virtuoso.commands.cli.CommandLineSpec;
import dev.virtuoso.commands.cli.ParsedArgs;
import dev.virtuoso.commands.cli.Units;
import dev.virtuoso.commands.demo.BackgroundTraffic;
import dev.virtuoso.commands.demo.DemoOptions;
import dev.virtuoso.commands.demo.EndpointPair;
import dev.virtuoso.commands.demo.FabricPlan;

/**
 * {@code virtuoso:testbed start|stop|status}: for the shell, the demo's fabric and a connected
 * pair with MP_WRITE traffic running in the background, so {@code connections -w 10},
 * {@code policy 1 lb-adaptive} and {@code path down 1 0} can be tried live.
 */
@Component(service = TestbedCommand.class, immediate = true, property = {"osgi.command.scope=virtuoso",
    "osgi.command.function=testbed"})
public class TestbedCommand {

    private static final CommandLineSpec SPEC = new CommandLineSpec("testbed", "start|stop|status", 1, 1)
            .option('q', "paths", "N", "4", "number of paths")
            .option('r', "rates", "LIST", "300m,150m,100m,50m", "link rate of each path")
            .option((char) 0, "policy", "NAME", "lb-roundrobin", "load balancer of the connection")
            .option('s', "size", "SIZE", "1M", "bytes per MP_WRITE")
            .option('t', "window", "N", "8", "MP_WRITEs outstanding");

    @Reference
    private VirtuosoServices services;

    @Reference
    private ConnectionRegistry registry;

    private SoftProviderConfig fabric;
    private EndpointPair pair;
    private BackgroundTraffic traffic;
    private long startNanos;

    /**
     * @param args {@code start [options] | stop | status}
     * @throws Exception if starting fails
     */
    public synchronized void testbed(String... args) throws Exception {
        ParsedArgs a = SPEC.parse(args);
        PrintStream out = System.out;
        if (a.help()) {
            out.print(SPEC.usage());
            return;
        }
        switch (a.positionals().get(0)) {
            case "start" -> start(a, out);
            case "stop" -> {
                boolean was = pair != null;
                stop();
                out.println(was ? "testbed stopped" : "no testbed is running");
            }
            case "status" -> status(out);
            default -> throw new CommandError("testbed: expected start, stop or status");
        }
    }

    private void start(ParsedArgs a, PrintStream out) throws Exception {
        if (pair != null) {
            throw new IllegalStateException("a testbed is running; virtuoso:testbed stop first");
        }
        // reuse the demo's parser for paths and rates
        List<String> demoArgs = new ArrayList<>(List.of("--rates", a.value("rates")));
        if (a.has("paths")) {
            demoArgs.addAll(List.of("--paths", a.value("paths")));
        }
        FabricPlan plan = DemoOptions.from(DemoOptions.SPEC.parse(demoArgs.toArray(String[]::new))).plan();
        int wr = (int) a.size("size", 4096, 16L << 20);
        int window = a.intValue("window", 1, 64);
        fabric = SoftProviderConfig.fabric(services, plan.spec(), Set.of(FabricPlan.CLIENT, FabricPlan.SERVER));
        try {
            List<InetAddress> client = new ArrayList<>();
            List<InetAddress> server = new ArrayList<>();
            for (int i = 0; i < plan.paths(); i++) {
                client.add(plan.clientAddress(i));
                server.add(plan.serverAddress(i));
            }
            ConnectOptions opts = ConnectOptions.builder().provider(SoftProviderConfig.PROVIDER)
                    .loadBalancer(a.value("policy")).handshakeTimeout(Duration.ofSeconds(10)).build();
            pair = EndpointPair.open(services.connector(10, TimeUnit.SECONDS), opts, FabricPlan.CLIENT, client,
                    FabricPlan.SERVER, server, wr * window);
            registry.register(pair.clientConnection(), "testbed client");
            registry.register(pair.server().connection(), "testbed server");
            traffic = new BackgroundTraffic(pair, wr, window);
            startNanos = System.nanoTime();
        } catch (Exception e) {
            stop();
            throw e;
        }
        out.printf(Locale.ROOT, "testbed up: %d paths (%s), connection %s with %s, MP_WRITE traffic running%n",
                plan.paths(), a.value("rates"), pair.clientConnection().id(), a.value("policy"));
        out.println("try: connections -w 5 | policy 1 lb-adaptive | path down 1 0 | path up 1 0 | testbed stop");
    }

    private void status(PrintStream out) {
        if (pair == null) {
            out.println("no testbed is running (testbed start)");
            return;
        }
        double secs = (System.nanoTime() - startNanos) / 1e9;
        out.printf(Locale.ROOT, "testbed: %s verified in %.1f s (%s average)%s%n", Units.bytes(traffic.bytes()), secs,
                Units.rate(traffic.bytes() * 8 / Math.max(secs, 1e-9)),
                traffic.failure() != null ? "; traffic stopped: " + traffic.failure() : "");
    }

    /** Stops the traffic, closes the pair and restores the soft RNIC configuration. */
    @Deactivate
    synchronized void stop() {
        if (traffic != null) {
            traffic.close();
            traffic = null;
        }
        if (pair != null) {
            registry.unregister(pair.clientConnection());
            registry.unregister(pair.server().connection());
            pair.close();
            pair = null;
        }
        if (fabric != null) {
            fabric.close();
            fabric = null;
        }
    }
}
