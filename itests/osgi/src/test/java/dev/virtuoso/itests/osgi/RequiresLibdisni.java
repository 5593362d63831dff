package dev.virtuoso.itests.osgi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.AssumptionViolatedException;
import org.junit.Test;
import org.junit.runner.Description;
import org.junit.runner.Runner;
import org.junit.runner.notification.Failure;
import org.junit.runner.notification.RunNotifier;
import org.ops4j.pax.exam.junit.PaxExam;

/**
 * JUnit 4 runner for Pax Exam tests that need libdisni on a host without RDMA devices: runs the
 * class with {@link PaxExam} when {@link Libdisni#find()} finds a libdisni and
 * {@value #DEVICES_DIR} lists no device, and otherwise reports each test as skipped (an assumption
 * failure carrying the reason) without starting a framework.
 *
 * <p>The decision is made on the host because Pax Exam runs test bodies inside the framework
 * through JUnit there, which counts a failed {@code Assume} as a pass.
 */
public final class RequiresLibdisni extends Runner {

    /** Where the kernel lists RDMA devices. */
    static final String DEVICES_DIR = "/sys/class/infiniband";

    private final Class<?> testClass;
    private final Runner paxExam;
    private final String skipReason;

    /**
     * @param testClass the test class
     * @throws Exception if Pax Exam cannot set the class up
     */
    public RequiresLibdisni(Class<?> testClass) throws Exception {
        this.testClass = testClass;
        this.skipReason = skipReason().orElse(null);
        this.paxExam = skipReason == null ? new PaxExam(testClass) : null;
    }

    /** @return why a libdisni test cannot run on this host, if it cannot */
    static Optional<String> skipReason() {
        if (Libdisni.find().isEmpty()) {
            return Optional.of(Libdisni.notFoundMessage());
        }
        List<String> devices = rdmaDevices();
        if (!devices.isEmpty()) {
            return Optional.of("this host has RDMA devices " + devices + " under " + DEVICES_DIR
                    + "; the test checks the binding's behaviour without one");
        }
        return Optional.empty();
    }

    private static List<String> rdmaDevices() {
        Path dir = Paths.get(DEVICES_DIR);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    @Override
    public Description getDescription() {
        if (paxExam != null) {
            return paxExam.getDescription();
        }
        Description suite = Description.createSuiteDescription(testClass);
        for (Method m : testClass.getMethods()) {
            if (m.isAnnotationPresent(Test.class)) {
                suite.addChild(Description.createTestDescription(testClass, m.getName()));
            }
        }
        return suite;
    }

    @Override
    public void run(RunNotifier notifier) {
        if (paxExam != null) {
            paxExam.run(notifier);
            return;
        }
        for (Description test : getDescription().getChildren()) {
            notifier.fireTestStarted(test);
            notifier.fireTestAssumptionFailed(new Failure(test, new AssumptionViolatedException(skipReason)));
            notifier.fireTestFinished(test);
        }
    }
}
