package dev.virtuoso.spi.verbs;

import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/** A live, thread-safe view of counters; values only grow until the owner is closed. */
@ProviderType
public interface VerbsCounters {

    /**
     * @param counter which counter
     * @return its current value, or -1 if this provider does not count it
     */
    long get(VerbsCounter counter);

    /** @return a snapshot of every supported counter, in enum order */
    Map<VerbsCounter, Long> snapshot();
}
