package dev.virtuoso.itests.rxe;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs JUnit 5 tests where no build tool is (the rxe guest) and prints one line per test:
 * <pre>
 * JUNIT pass|FAIL|skip Class method-display-name [reason]
 * JUNIT-SUMMARY tests N passed P failed F skipped S
 * </pre>
 * Arguments select what runs: {@code package:NAME} or {@code class:NAME}. Exit status 0 only if
 * at least one test ran and none failed; skipped tests are listed with their reason (the caller
 * decides which skips it accepts).
 */
public final class JUnitRun {
    private JUnitRun() {
    }

    /** @param args selectors, see the class comment */
    public static void main(String[] args) {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("package:")) {
                selectors.add(DiscoverySelectors.selectPackage(a.substring(8)));
            } else if (a.startsWith("class:")) {
                selectors.add(DiscoverySelectors.selectClass(a.substring(6)));
            } else {
                System.err.println("usage: JUnitRun (package:NAME | class:NAME)...");
                System.exit(2);
            }
        }
        System.exit(run(selectors, System.out) ? 0 : 1);
    }

    /** @return true if a test ran and none failed */
    static boolean run(List<DiscoverySelector> selectors, PrintStream out) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request().selectors(selectors).build();
        Listener l = new Listener(out);
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, l);
        out.printf("JUNIT-SUMMARY tests %d passed %d failed %d skipped %d%n", l.passed.get() + l.failed.get()
                + l.skipped.get(), l.passed.get(), l.failed.get(), l.skipped.get());
        return l.passed.get() > 0 && l.failed.get() == 0;
    }

    /** Prints each test's outcome; a failing container (e.g. its set-up) counts as a failure. */
    private static final class Listener implements TestExecutionListener {
        private final PrintStream out;
        final AtomicInteger passed = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger skipped = new AtomicInteger();

        Listener(PrintStream out) {
            this.out = out;
        }

        private static String name(TestIdentifier id) {
            Optional<String> cls = id.getSource().filter(MethodSource.class::isInstance)
                    .map(s -> ((MethodSource) s).getJavaClass().getSimpleName());
            return cls.map(c -> c + " ").orElse("") + id.getDisplayName().replace('\n', ' ');
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            skipped.incrementAndGet();
            out.println("JUNIT skip " + name(id) + " [" + reason + "]");
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            String why = result.getThrowable().map(t -> " [" + t + "]").orElse("");
            switch (result.getStatus()) {
                case SUCCESSFUL -> {
                    if (id.isTest()) {
                        passed.incrementAndGet();
                        out.println("JUNIT pass " + name(id));
                    }
                }
                case ABORTED -> {
                    skipped.incrementAndGet();
                    out.println("JUNIT skip " + name(id) + why);
                }
                case FAILED -> {
                    failed.incrementAndGet();
                    out.println("JUNIT FAIL " + name(id) + why.replace('\n', ' '));
                    result.getThrowable().ifPresent(t -> t.printStackTrace(out));
                }
            }
        }
    }
}
