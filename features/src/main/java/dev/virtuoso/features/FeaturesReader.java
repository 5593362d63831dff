package dev.virtuoso.features;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import javax.xml.XMLConstants;
import javax.xml.parsers.ParserConfigurationException;
import javax.xml.parsers.SAXParser;
import javax.xml.parsers.SAXParserFactory;

import org.xml.sax.Attributes;
import org.xml.sax.Locator;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Reads a Karaf features descriptor in the {@value #NAMESPACE} namespace and checks it against the
 * rules of that schema that can be checked without Karaf: element names and nesting, required and
 * allowed attributes, attribute types (int, boolean, the library type enumeration), non-empty
 * feature names, URI syntax of bundle and repository locations, no text in element-only content,
 * and {@code scoping} only once and last in a feature. Every problem is collected with its line
 * number; nothing is reported until the whole document has been read.
 *
 * <p>Stateless and thread-safe; each call parses with its own parser. External entities and DTDs
 * are refused.
 */
public final class FeaturesReader {

    /** The Karaf features XML namespace this reader accepts. */
    public static final String NAMESPACE = "http://karaf.apache.org/xmlns/features/v1.6.0";

    private static final String XSI = XMLConstants.W3C_XML_SCHEMA_INSTANCE_NS_URI;

    /** Allowed attributes per element, with their schema type. */
    private static final Map<String, Map<String, Type>> ATTRIBUTES = Map.ofEntries(
            Map.entry("features", Map.of("name", Type.STRING)),
            Map.entry("feature", Map.of("name", Type.NAME, "version", Type.STRING, "description", Type.STRING,
                    "install", Type.NAME, "start-level", Type.INT, "hidden", Type.BOOLEAN)),
            Map.entry("dependency", Map.of("version", Type.STRING, "prerequisite", Type.BOOLEAN,
                    "dependency", Type.BOOLEAN)),
            Map.entry("bundle", Map.of("start-level", Type.INT, "start", Type.BOOLEAN, "dependency", Type.BOOLEAN)),
            Map.entry("config", Map.of("name", Type.STRING, "append", Type.BOOLEAN, "external", Type.BOOLEAN,
                    "override", Type.BOOLEAN)),
            Map.entry("configfile", Map.of("finalname", Type.STRING, "override", Type.BOOLEAN)),
            Map.entry("requirement", Map.of("prerequisite", Type.BOOLEAN)),
            Map.entry("library", Map.of("type", Type.LIBRARY_TYPE, "export", Type.BOOLEAN, "delegate", Type.BOOLEAN)),
            Map.entry("scoping", Map.of("acceptDependencies", Type.BOOLEAN)),
            Map.entry("scopeFilter", Map.of("namespace", Type.STRING)),
            Map.entry("repository", Map.of()), Map.entry("resource-repository", Map.of()),
            Map.entry("details", Map.of()), Map.entry("capability", Map.of()),
            Map.entry("conditional", Map.of()));

    private static final Map<String, Set<String>> REQUIRED = Map.of(
            "features", Set.of("name"), "feature", Set.of("name"), "config", Set.of("name"),
            "configfile", Set.of("finalname"), "scopeFilter", Set.of("namespace"));

    /** Child elements allowed per (schema type of the) parent element. */
    private static final Map<String, Set<String>> CHILDREN = Map.of(
            "features", Set.of("repository", "resource-repository", "feature"),
            "feature", Set.of("details", "config", "configfile", "feature", "bundle", "conditional",
                    "requirement", "capability", "library", "scoping"),
            "conditional", Set.of("config", "configfile", "feature", "bundle", "condition"),
            "scoping", Set.of("import", "export"));

    /** Elements with simple content (text allowed). */
    private static final Set<String> SIMPLE = Set.of("repository", "resource-repository", "details", "config",
            "configfile", "dependency", "bundle", "requirement", "capability", "library", "scopeFilter");

    /** Simple-content elements whose text is an anyURI that must not be empty. */
    private static final Set<String> URI_CONTENT = Set.of("repository", "resource-repository", "bundle",
            "configfile");

    private enum Type { STRING, NAME, INT, BOOLEAN, LIBRARY_TYPE }

    /**
     * Reads a descriptor file.
     *
     * @param file the descriptor
     * @return the repository
     * @throws FeaturesException with every problem found
     * @throws IOException if the file cannot be read
     */
    public FeatureRepository read(Path file) throws FeaturesException, IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(in, file.toString());
        }
    }

    /**
     * Reads a descriptor.
     *
     * @param in the document (not closed)
     * @param source name of the document for messages
     * @return the repository
     * @throws FeaturesException with every problem found (well-formedness errors included)
     * @throws IOException if the stream fails
     */
    public FeatureRepository read(InputStream in, String source) throws FeaturesException, IOException {
        Handler h = new Handler();
        try {
            newParser().parse(in, h);
        } catch (SAXParseException e) {
            h.problems.add("line " + e.getLineNumber() + ": not well-formed XML: " + e.getMessage());
        } catch (SAXException e) {
            h.problems.add("not well-formed XML: " + e.getMessage());
        }
        if (!h.problems.isEmpty()) {
            throw new FeaturesException(source, h.problems);
        }
        if (h.result == null) {
            throw new FeaturesException(source, List.of("no <features> root element"));
        }
        return h.result;
    }

    private static SAXParser newParser() throws IOException {
        try {
            SAXParserFactory f = SAXParserFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature("http://xml.org/sax/features/external-general-entities", false);
            f.setFeature("http://xml.org/sax/features/external-parameter-entities", false);
            return f.newSAXParser();
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("no usable XML parser", e);
        }
    }

    /** One open element: its schema type, attributes and collected text and children. */
    private static final class Open {
        final String type;
        final int line;
        final Map<String, String> attrs;
        final StringBuilder text = new StringBuilder();
        boolean scopingSeen;
        // collected for features and feature dependencies
        final List<FeatureDependency> deps = new ArrayList<>();
        final List<BundleEntry> bundles = new ArrayList<>();
        final List<String> ignored = new ArrayList<>();
        final List<Feature> features = new ArrayList<>();
        final List<String> repositories = new ArrayList<>();
        String details = "";

        Open(String type, int line, Map<String, String> attrs) {
            this.type = type;
            this.line = line;
            this.attrs = attrs;
        }
    }

    private static final class Handler extends DefaultHandler {
        final List<String> problems = new ArrayList<>();
        final Deque<Open> stack = new ArrayDeque<>();
        Locator locator;
        FeatureRepository result;

        @Override
        public void setDocumentLocator(Locator l) {
            this.locator = l;
        }

        private int line() {
            return locator == null ? -1 : locator.getLineNumber();
        }

        private void problem(int line, String msg) {
            problems.add("line " + line + ": " + msg);
        }

        @Override
        public void startElement(String uri, String localName, String qName, Attributes atts) {
            int line = line();
            Open parent = stack.peek();
            String type = typeOf(parent, localName);
            if (!NAMESPACE.equals(uri)) {
                problem(line, "element <" + qName + "> is not in namespace " + NAMESPACE
                        + (uri.isEmpty() ? " (missing xmlns?)" : " but in " + uri));
            } else if (parent == null && !localName.equals("features")) {
                problem(line, "root element must be <features>, found <" + localName + ">");
            } else if (parent != null && !CHILDREN.getOrDefault(parent.type, Set.of()).contains(localName)) {
                problem(line, "<" + localName + "> is not allowed in <" + parent.type + ">");
            }
            if (parent != null && parent.type.equals("feature")) {
                if (parent.scopingSeen) {
                    problem(line, "<scoping> must be the last element of a feature, found <" + localName
                            + "> after it");
                }
                if (localName.equals("scoping")) {
                    parent.scopingSeen = true;
                }
            }
            stack.push(new Open(type, line, attributes(type, localName, atts, line)));
        }

        /** Maps an element to its schema type: a feature inside a feature is a dependency, etc. */
        private static String typeOf(Open parent, String localName) {
            if (parent == null) {
                return localName;
            }
            if (localName.equals("feature") && (parent.type.equals("feature") || parent.type.equals("conditional"))) {
                return "dependency";
            }
            if (localName.equals("condition")) {
                return "dependency";
            }
            if (parent.type.equals("scoping")) {
                return "scopeFilter";
            }
            return localName;
        }

        private Map<String, String> attributes(String type, String localName, Attributes atts, int line) {
            Map<String, Type> allowed = ATTRIBUTES.getOrDefault(type, Map.of());
            Map<String, String> values = new HashMap<>();
            for (int i = 0; i < atts.getLength(); i++) {
                String ns = atts.getURI(i);
                String name = atts.getLocalName(i);
                if (XSI.equals(ns)) {
                    continue;
                }
                Type t = ns.isEmpty() ? allowed.get(name) : null;
                if (t == null) {
                    problem(line, "attribute '" + atts.getQName(i) + "' is not allowed on <" + localName + ">");
                    continue;
                }
                String v = atts.getValue(i);
                String err = checkType(t, v);
                if (err != null) {
                    problem(line, "attribute " + name + "=\"" + v + "\" on <" + localName + ">: " + err);
                }
                values.put(name, v.trim());
            }
            for (String req : REQUIRED.getOrDefault(type, Set.of())) {
                if (!values.containsKey(req)) {
                    problem(line, "<" + localName + "> needs attribute '" + req + "'");
                }
            }
            return values;
        }

        private static String checkType(Type t, String v) {
            String s = v.trim();
            switch (t) {
                case NAME:
                    return s.isEmpty() ? "must not be empty" : null;
                case INT:
                    try {
                        Integer.parseInt(s);
                        return null;
                    } catch (NumberFormatException e) {
                        return "not an xs:int";
                    }
                case BOOLEAN:
                    return Set.of("true", "false", "1", "0").contains(s) ? null : "not an xs:boolean";
                case LIBRARY_TYPE:
                    return Set.of("default", "endorsed", "extension", "boot").contains(s) ? null
                            : "must be default, endorsed, extension or boot";
                default:
                    return null;
            }
        }

        @Override
        public void characters(char[] ch, int start, int length) {
            Open o = stack.peek();
            if (o != null) {
                o.text.append(ch, start, length);
            }
        }

        @Override
        public void endElement(String uri, String localName, String qName) {
            Open o = stack.pop();
            Open parent = stack.peek();
            String text = o.text.toString().trim();
            if (!SIMPLE.contains(o.type) && !text.isEmpty()) {
                problem(o.line, "<" + localName + "> must not contain text");
            }
            if (URI_CONTENT.contains(o.type)) {
                checkUri(o.line, localName, text);
            }
            if (o.type.equals("dependency") && text.isEmpty()) {
                problem(o.line, "<" + localName + "> needs a feature name as content");
            }
            if (parent == null) {
                if (o.type.equals("features")) {
                    result = new FeatureRepository(o.attrs.getOrDefault("name", ""), o.repositories, o.features);
                }
                return;
            }
            switch (o.type) {
                case "repository" -> parent.repositories.add(text);
                case "feature" -> parent.features.add(new Feature(o.attrs.getOrDefault("name", ""),
                        o.attrs.getOrDefault("version", FeatureDependency.ANY_VERSION),
                        o.attrs.getOrDefault("description", ""), o.details, o.deps, o.bundles, o.ignored));
                case "details" -> parent.details = text;
                case "bundle" -> {
                    if (parent.type.equals("feature")) {
                        parent.bundles.add(new BundleEntry(text, intAttr(o, "start-level", 0),
                                boolAttr(o, "start", true), boolAttr(o, "dependency", false)));
                    } else {
                        parent.ignored.add(localName);
                    }
                }
                case "dependency" -> {
                    if (parent.type.equals("feature") && localName.equals("feature")) {
                        parent.deps.add(new FeatureDependency(text,
                                o.attrs.getOrDefault("version", FeatureDependency.ANY_VERSION),
                                boolAttr(o, "prerequisite", false), boolAttr(o, "dependency", false)));
                    }
                }
                default -> {
                    if (parent.type.equals("feature")) {
                        parent.ignored.add(localName);
                    }
                }
            }
        }

        private void checkUri(int line, String localName, String text) {
            if (text.isEmpty()) {
                problem(line, "<" + localName + "> needs a location as content");
                return;
            }
            try {
                new URI(text);
            } catch (URISyntaxException e) {
                problem(line, "<" + localName + "> location is not a URI: " + e.getMessage());
            }
        }

        private static int intAttr(Open o, String name, int dflt) {
            try {
                return o.attrs.containsKey(name) ? Integer.parseInt(o.attrs.get(name)) : dflt;
            } catch (NumberFormatException e) {
                return dflt; // already reported
            }
        }

        private static boolean boolAttr(Open o, String name, boolean dflt) {
            String v = o.attrs.get(name);
            return v == null ? dflt : v.equals("true") || v.equals("1");
        }

        @Override
        public void warning(SAXParseException e) {
            // warnings do not make a descriptor invalid
        }

        @Override
        public void error(SAXParseException e) {
            problem(e.getLineNumber(), e.getMessage());
        }
    }
}
