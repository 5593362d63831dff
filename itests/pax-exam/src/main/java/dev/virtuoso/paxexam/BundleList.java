package dev.virtuoso.paxexam;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The bundles of each option set, read from {@code bundles.properties} (written by the build with
 * the versions of the parent POM).
 */
final class BundleList {
    static final String OSGI_RUNTIME = "osgi-runtime";
    static final String CORE = "core";
    static final String SOFT_PROVIDER = "soft-provider";
    static final String POLICIES = "policies";
    static final String COMMANDS = "commands";
    /** Every set, in the order a full installation provisions them. */
    static final List<String> SETS = List.of(OSGI_RUNTIME, CORE, SOFT_PROVIDER, POLICIES, COMMANDS);

    private static final Properties LIST = load();

    private BundleList() {
    }

    private static Properties load() {
        Properties p = new Properties();
        try (InputStream in = BundleList.class.getResourceAsStream("bundles.properties")) {
            if (in == null) {
                throw new IllegalStateException("bundles.properties missing from the virtuoso-pax-exam jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    static String virtuosoVersion() {
        return LIST.getProperty("virtuoso.version");
    }

    /** @return {groupId, artifactId, version} of every bundle of {@code set}, install order */
    static List<String[]> coordinates(String set) {
        String value = LIST.getProperty(set);
        if (value == null) {
            throw new IllegalArgumentException("no option set " + set + "; sets: " + SETS);
        }
        List<String[]> out = new ArrayList<>();
        for (String entry : value.split(",")) {
            String[] gav = entry.trim().split("/");
            if (gav.length != 3) {
                throw new IllegalStateException("bad entry in bundles.properties: " + entry);
            }
            out.add(gav);
        }
        return out;
    }

    static List<String> urls(String set) {
        List<String> out = new ArrayList<>();
        for (String[] c : coordinates(set)) {
            out.add("mvn:" + c[0] + "/" + c[1] + "/" + c[2]);
        }
        return out;
    }
}
