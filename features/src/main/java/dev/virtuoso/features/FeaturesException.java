package dev.virtuoso.features;

import java.util.List;

/** A features descriptor is malformed or cannot be used; carries every problem found. */
public class FeaturesException extends Exception {
    private static final long serialVersionUID = 1L;

    private final List<String> problems;

    /**
     * @param source what was read (file name), for the message
     * @param problems the problems, each a self-contained sentence
     */
    public FeaturesException(String source, List<String> problems) {
        super(source + ": " + problems.size() + " problem(s):\n  " + String.join("\n  ", problems));
        this.problems = List.copyOf(problems);
    }

    /** @return every problem found */
    public List<String> problems() {
        return problems;
    }
}
