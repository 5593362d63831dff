package dev.virtuoso.itests.osgi;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.osgi.framework.Constants;

/**
 * Finds a libdisni built for this host and packs it into a fragment of the DiSNI binding bundle.
 *
 * <p>Where it looks, in order: the directory in the system property {@value #DIR_PROPERTY} (Maven
 * passes {@code -Dvirtuoso.libdisni.dir=...} on to the tests), the environment variable
 * {@value #DIR_ENV}, this JVM's {@code java.library.path}, then {@code /usr/local/lib},
 * {@code /usr/local/lib64}, {@code /usr/lib64}, the multiarch directory and {@code /usr/lib}.
 *
 * <p>Why a fragment: Pax Exam's native container runs every test class's framework in the one
 * surefire JVM, and {@code java.library.path} is fixed when that JVM starts. A JNI library is bound
 * to the first class loader that loads it, so with libdisni on {@code java.library.path} the DiSNI
 * bundle of whichever framework came first would keep it and every later framework's bundle would
 * fail ("already loaded in another classloader"). A fragment carrying libdisni as
 * {@code Bundle-NativeCode} is extracted into its own framework's storage, so exactly one bundle
 * class loader, the DiSNI bundle's of that framework, loads that copy, through the same
 * {@code System.loadLibrary("disni")} in DiSNI's NativeDispatcher.
 *
 * <p>Stateless; runs on the host, before a framework starts (to decide whether the tests run and to
 * build the fragment).
 */
final class Libdisni {

    /** System property: a directory holding {@code libdisni.so}. */
    static final String DIR_PROPERTY = "virtuoso.libdisni.dir";
    /** Environment variable: a directory holding {@code libdisni.so}. */
    static final String DIR_ENV = "VIRTUOSO_LIBDISNI_DIR";
    /** Symbolic name of the fragment the tests build. */
    static final String FRAGMENT_NAME = "dev.virtuoso.itests.libdisni";
    /** Symbolic name of the bundle the fragment attaches to. */
    static final String HOST_BUNDLE = "dev.virtuoso.verbs.disni";

    private static final String FILE_NAME = System.mapLibraryName("disni");

    private Libdisni() {
    }

    /** @return the first {@code libdisni.so} found in {@link #searchPath()} */
    static Optional<Path> find() {
        for (Path dir : searchPath()) {
            Path lib = dir.resolve(FILE_NAME);
            if (Files.isReadable(lib)) {
                return Optional.of(lib);
            }
        }
        return Optional.empty();
    }

    /** @return the directories {@link #find()} looks in, in order */
    static List<Path> searchPath() {
        Set<String> dirs = new LinkedHashSet<>();
        addIfSet(dirs, System.getProperty(DIR_PROPERTY));
        addIfSet(dirs, System.getenv(DIR_ENV));
        for (String entry : System.getProperty("java.library.path", "").split(java.io.File.pathSeparator)) {
            addIfSet(dirs, entry);
        }
        dirs.add("/usr/local/lib");
        dirs.add("/usr/local/lib64");
        dirs.add("/usr/lib64");
        dirs.add("/usr/lib/" + System.getProperty("os.arch").replace("amd64", "x86_64") + "-linux-gnu");
        dirs.add("/usr/lib");
        List<Path> out = new ArrayList<>();
        for (String d : dirs) {
            out.add(Paths.get(d));
        }
        return out;
    }

    /** @return why the test cannot run here, for the skip message */
    static String notFoundMessage() {
        return "no " + FILE_NAME + " found in " + searchPath() + "; build libdisni 2.1 with"
                + " bundles/verbs-disni/native/build-libdisni.sh and pass -D" + DIR_PROPERTY
                + "=<its lib directory> (or set " + DIR_ENV + "), see docs/running-on-hardware.md";
    }

    /**
     * Writes a fragment of {@value #HOST_BUNDLE} whose {@code Bundle-NativeCode} is {@code lib}.
     *
     * @param lib a libdisni shared object (symbolic links are followed)
     * @param dir where to write the jar
     * @return the jar
     */
    static Path fragment(Path lib, Path dir) {
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        main.putValue(Constants.BUNDLE_SYMBOLICNAME, FRAGMENT_NAME);
        main.putValue(Constants.BUNDLE_VERSION, "2.1.0");
        main.putValue(Constants.FRAGMENT_HOST, HOST_BUNDLE);
        main.putValue(Constants.BUNDLE_NATIVECODE, FILE_NAME + ";" + Constants.BUNDLE_NATIVECODE_OSNAME + "="
                + System.getProperty("os.name") + ";" + Constants.BUNDLE_NATIVECODE_PROCESSOR + "="
                + System.getProperty("os.arch"));
        try {
            Files.createDirectories(dir);
            Path jar = dir.resolve(FRAGMENT_NAME + ".jar");
            try (OutputStream out = Files.newOutputStream(jar);
                    JarOutputStream jarOut = new JarOutputStream(out, manifest)) {
                jarOut.putNextEntry(new JarEntry(FILE_NAME));
                Files.copy(lib, jarOut);
                jarOut.closeEntry();
            }
            return jar;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot pack " + lib + " into a fragment under " + dir, e);
        }
    }

    private static void addIfSet(Set<String> dirs, String dir) {
        if (dir != null && !dir.isBlank()) {
            dirs.add(dir.trim());
        }
    }
}
