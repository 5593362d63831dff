package dev.virtuoso.launcher;

import java.io.IOException;
import java.io.InputStream;

import dev.virtuoso.features.FeatureRepository;
import dev.virtuoso.features.FeaturesException;
import dev.virtuoso.features.FeaturesReader;

/** Loads the feature repository shipped in the virtuoso-features jar on the launcher's class path. */
final class FeaturesLoader {

    /** Class-path resource of the descriptor inside the virtuoso-features jar. */
    static final String RESOURCE = "/dev/virtuoso/features/features.xml";

    private FeaturesLoader() {
    }

    /**
     * @return the repository
     * @throws IOException if the descriptor is missing or invalid
     */
    static FeatureRepository load() throws IOException {
        try (InputStream in = FeaturesLoader.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException("virtuoso-features jar with " + RESOURCE + " is not on the class path");
            }
            return new FeaturesReader().read(in, "features.xml");
        } catch (FeaturesException e) {
            throw new IOException(e.getMessage(), e);
        }
    }
}
