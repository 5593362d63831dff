package dev.virtuoso.verbs.soft.fabric;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The text form of a fabric: statements separated by {@code ;} or new lines, {@code #} comments.
 * <pre>
 * # hosts: NAME=ADDRESS[,ADDRESS...], several per statement
 * A=10.0.0.1,10.0.1.1 B=10.0.0.2,10.0.1.2
 * # one path: a link between two addresses
 * link 10.0.0.1-10.0.0.2 rate=100m delay=1ms loss=0.01
 * # a link between two hosts, shared by their address pairs without a link of their own
 * link A-B rate=1g
 * # links made on first use for any other address pair
 * link * rate=10g
 * seed 42
 * </pre>
 * Link properties are those of {@link LinkSpec#parse(String)}. Host names start with a letter and
 * contain letters, digits and {@code _}; addresses are literals (never looked up in DNS).
 *
 * @param hosts host declarations in order
 * @param links link declarations in order
 * @param defaultLink the {@code link *} spec, or null
 * @param seed the {@code seed} statement's value, 0 if absent
 */
public record FabricSpec(List<HostDecl> hosts, List<LinkDecl> links, LinkSpec defaultLink, long seed) {
    private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");

    public FabricSpec {
        hosts = List.copyOf(hosts);
        links = List.copyOf(links);
    }

    /**
     * A host declaration.
     *
     * @param name host name
     * @param addresses its addresses
     */
    public record HostDecl(String name, List<InetAddress> addresses) {
        public HostDecl {
            addresses = List.copyOf(addresses);
        }
    }

    /**
     * A link declaration.
     *
     * @param endA address literal or host name
     * @param endB address literal or host name
     * @param spec properties
     */
    public record LinkDecl(String endA, String endB, LinkSpec spec) {
    }

    /**
     * Parses and checks a spec: names and addresses unique, link ends known, no duplicate links.
     *
     * @param text the spec
     * @return the parsed spec
     * @throws FabricSpecException naming the statement (1-based) and the problem
     */
    public static FabricSpec parse(String text) {
        List<HostDecl> hosts = new ArrayList<>();
        List<LinkDecl> links = new ArrayList<>();
        Set<String> hostNames = new HashSet<>();
        Set<InetAddress> addresses = new HashSet<>();
        Set<String> linked = new HashSet<>();
        LinkSpec defaultLink = null;
        long seed = 0;
        List<String> statements = statements(text);
        for (int n = 0; n < statements.size(); n++) {
            String statement = statements.get(n);
            if (statement.isEmpty()) {
                continue;
            }
            String[] words = statement.split("\\s+");
            try {
                switch (words[0].toLowerCase(java.util.Locale.ROOT)) {
                    case "link" -> {
                        if (words.length < 2) {
                            throw new IllegalArgumentException("link needs ends: link A-B or link 10.0.0.1-10.0.0.2");
                        }
                        LinkSpec spec = LinkSpec.parse(words, 2);
                        if (words[1].equals("*")) {
                            if (defaultLink != null) {
                                throw new IllegalArgumentException("link * given twice");
                            }
                            defaultLink = spec;
                            continue;
                        }
                        LinkDecl decl = linkDecl(words[1], spec, hostNames, addresses);
                        String key = decl.endA().compareTo(decl.endB()) < 0
                                ? decl.endA() + "-" + decl.endB() : decl.endB() + "-" + decl.endA();
                        if (!linked.add(key)) {
                            throw new IllegalArgumentException(words[1] + " is linked twice");
                        }
                        links.add(decl);
                    }
                    case "seed" -> {
                        if (words.length != 2) {
                            throw new IllegalArgumentException("seed takes one integer: seed 42");
                        }
                        try {
                            seed = Long.parseLong(words[1]);
                        } catch (NumberFormatException e) {
                            throw new IllegalArgumentException("seed '" + words[1] + "' is not an integer", e);
                        }
                    }
                    default -> {
                        for (String word : words) {
                            hosts.add(hostDecl(word, hostNames, addresses));
                        }
                    }
                }
            } catch (IllegalArgumentException e) {
                throw new FabricSpecException("fabric spec statement " + (n + 1) + " '" + statement + "': "
                        + e.getMessage(), e);
            }
        }
        return new FabricSpec(hosts, links, defaultLink, seed);
    }

    private static List<String> statements(String text) {
        List<String> out = new ArrayList<>();
        for (String line : text.split("\\R")) {
            int hash = line.indexOf('#');
            String code = hash >= 0 ? line.substring(0, hash) : line;
            for (String s : code.split(";")) {
                out.add(s.trim());
            }
        }
        out.removeIf(String::isEmpty);
        return out;
    }

    private static HostDecl hostDecl(String word, Set<String> hostNames, Set<InetAddress> addresses) {
        int eq = word.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("'" + word
                    + "' is neither a host (NAME=ADDRESS[,ADDRESS...]) nor a statement (link, seed)");
        }
        String name = word.substring(0, eq);
        if (!HOST_NAME.matcher(name).matches() || name.equalsIgnoreCase("link") || name.equalsIgnoreCase("seed")) {
            throw new IllegalArgumentException("'" + name
                    + "' is not a host name (a letter, then letters, digits or _; not link or seed)");
        }
        if (!hostNames.add(name)) {
            throw new IllegalArgumentException("host " + name + " is declared twice");
        }
        List<InetAddress> list = new ArrayList<>();
        for (String literal : word.substring(eq + 1).split(",", -1)) {
            InetAddress a = AddressLiterals.parse(literal);
            if (!addresses.add(a)) {
                throw new IllegalArgumentException("address " + literal + " is declared twice");
            }
            list.add(a);
        }
        return new HostDecl(name, list);
    }

    private static LinkDecl linkDecl(String ends, LinkSpec spec, Set<String> hostNames,
            Set<InetAddress> addresses) {
        int dash = ends.indexOf('-');
        if (dash <= 0 || dash == ends.length() - 1 || ends.indexOf('-', dash + 1) >= 0) {
            throw new IllegalArgumentException("'" + ends + "' is not two ends joined by '-' (A-B or 10.0.0.1-10.0.0.2)");
        }
        String a = ends.substring(0, dash);
        String b = ends.substring(dash + 1);
        boolean addressA = AddressLiterals.looksLikeAddress(a);
        if (addressA != AddressLiterals.looksLikeAddress(b)) {
            throw new IllegalArgumentException("link ends must both be addresses or both host names");
        }
        if (addressA) {
            InetAddress ia = AddressLiterals.parse(a);
            InetAddress ib = AddressLiterals.parse(b);
            for (InetAddress x : List.of(ia, ib)) {
                if (!addresses.contains(x)) {
                    throw new IllegalArgumentException("address " + x.getHostAddress()
                            + " belongs to no host declared before this link");
                }
            }
            if (ia.equals(ib)) {
                throw new IllegalArgumentException("a link needs two different addresses");
            }
            return new LinkDecl(ia.getHostAddress(), ib.getHostAddress(), spec);
        }
        for (String h : List.of(a, b)) {
            if (!hostNames.contains(h)) {
                throw new IllegalArgumentException("no host named " + h + " declared before this link");
            }
        }
        if (a.equals(b)) {
            throw new IllegalArgumentException("a link needs two different hosts");
        }
        return new LinkDecl(a, b, spec);
    }

    /**
     * Creates the network described.
     *
     * @param name network name
     * @return the running network; the caller closes it
     */
    public FabricNetwork build(String name) {
        FabricNetwork net = new FabricNetwork(name, seed);
        try {
            for (HostDecl h : hosts) {
                net.addHost(h.name(), h.addresses().toArray(new InetAddress[0]));
            }
            for (LinkDecl l : links) {
                net.link(l.endA(), l.endB(), l.spec());
            }
            if (defaultLink != null) {
                net.defaultLink(defaultLink);
            }
            return net;
        } catch (RuntimeException e) {
            net.close();
            throw e;
        }
    }
}
