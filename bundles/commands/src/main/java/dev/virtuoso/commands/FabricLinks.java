package dev.virtuoso.commands;

import java.util.List;
import java.util.Map;

/**
 * The soft RNIC's in-process fabric as {@code link} sees it. Published by
 * {@link dev.virtuoso.commands.fabric.SoftFabricLinks} only where verbs-soft runs, so the commands
 * bundle's other classes never name a verbs-soft type and the bundle resolves and works without
 * verbs-soft (its import of the fabric API is optional).
 */
public interface FabricLinks {
    /** What {@code link} says when no in-process fabric runs. */
    String NOT_RUNNING = "no in-process fabric is running (virtuoso:testbed start makes one)";

    /** @return true while an in-process fabric runs */
    boolean running();

    List<String> links();

    Map<String, Long> counters(String link);

    boolean isUp(String link);

    String spec(String link);

    void down(String link);

    void up(String link);

    void configure(String link, String spec);
}
