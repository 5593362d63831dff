package dev.virtuoso.verbs.soft.fabric;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** Parses IP address literals without ever asking DNS (spec text is untrusted configuration). */
final class AddressLiterals {
    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:][0-9a-fA-F:.]*");

    private AddressLiterals() {
    }

    /** @return true if {@code text} looks like an address literal rather than a host name */
    static boolean looksLikeAddress(String text) {
        return IPV4.matcher(text).matches() || (text.indexOf(':') >= 0 && IPV6.matcher(text).matches());
    }

    /**
     * @param text an IPv4 or IPv6 literal
     * @return the address
     * @throws IllegalArgumentException if it is not a valid literal
     */
    static InetAddress parse(String text) {
        var v4 = IPV4.matcher(text);
        if (v4.matches()) {
            byte[] bytes = new byte[4];
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(v4.group(i + 1));
                if (octet > 255) {
                    throw new IllegalArgumentException("'" + text + "' is not an IPv4 address");
                }
                bytes[i] = (byte) octet;
            }
            return byAddress(text, bytes);
        }
        if (text.indexOf(':') >= 0 && IPV6.matcher(text).matches()) {
            try {
                // a literal with only hex digits, ':' and '.' never triggers a lookup
                return InetAddress.getByName(text);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("'" + text + "' is not an IPv6 address", e);
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not an IP address literal");
    }

    private static InetAddress byAddress(String text, byte[] bytes) {
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("'" + text + "' is not an IP address", e);
        }
    }
}
