package dev.virtuoso.spi.policy;

/**
 * How a policy offers itself as the default of connections that name none. A load-balancing or
 * congestion-avoidance policy service that carries {@link #PROPERTY} (an integer) is a candidate;
 * the policy binding makes the candidate with the highest rank the policy behind the name
 * {@code ConnectOptions.DEFAULT_POLICY}. Policies rank themselves by what they are measured to do
 * (docs/policies.md); a deployment re-ranks them through the policy's configuration.
 *
 * @since 1.1
 */
public final class DefaultPolicyRank {
    /** Service property: the policy's rank as the default (higher wins; absent: never the default). */
    public static final String PROPERTY = "virtuoso.policy.default.rank";
    /**
     * Service property of the policy service published under the default name: the name of the
     * policy it stands for (tools show it; the core does not read it).
     */
    public static final String STANDS_FOR_PROPERTY = "virtuoso.policy.default.for";

    private DefaultPolicyRank() {
    }

    /**
     * @param value the property's value as found in service properties (Integer, Long, String, or
     *     a single-element array of those)
     * @return the rank, or {@code null} if absent or not a whole number
     */
    public static Integer of(Object value) {
        if (value instanceof Object[] a) {
            value = a.length == 1 ? a[0] : null;
        }
        if (value instanceof Number n) {
            return n.intValue();
        }
        if (value instanceof String s) {
            try {
                return Integer.valueOf(s.trim());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }
}
