package dev.virtuoso.features;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * The parts of a Maven POM the features check needs: coordinates (inherited from the parent where
 * absent), properties, modules and managed dependencies. Not a Maven model: no profiles, no
 * inheritance beyond the parent's group and version. Immutable.
 *
 * @param groupId the group (own or the parent's)
 * @param artifactId the artifact
 * @param version the version (own or the parent's), uninterpolated
 * @param properties {@code <properties>} entries in document order
 * @param modules {@code <modules>} entries
 * @param managed managed dependencies, versions uninterpolated
 */
public record PomModel(String groupId, String artifactId, String version, Map<String, String> properties,
        List<String> modules, List<Managed> managed) {

    private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

    /**
     * A managed dependency.
     *
     * @param groupId group
     * @param artifactId artifact
     * @param version version, possibly with {@code ${...}} references
     */
    public record Managed(String groupId, String artifactId, String version) {
    }

    /**
     * Reads a POM file.
     *
     * @param pom the file
     * @return its model
     * @throws IOException if it cannot be read or parsed
     */
    public static PomModel read(Path pom) throws IOException {
        Document doc;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            doc = f.newDocumentBuilder().parse(pom.toFile());
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("cannot parse " + pom + ": " + e.getMessage(), e);
        }
        Element project = doc.getDocumentElement();
        Element parent = child(project, "parent");
        String group = text(child(project, "groupId"), parent == null ? "" : text(child(parent, "groupId"), ""));
        String version = text(child(project, "version"), parent == null ? "" : text(child(parent, "version"), ""));
        Map<String, String> props = new LinkedHashMap<>();
        Element p = child(project, "properties");
        if (p != null) {
            for (Element e : children(p)) {
                props.put(e.getTagName(), e.getTextContent().trim());
            }
        }
        List<String> modules = new ArrayList<>();
        Element m = child(project, "modules");
        if (m != null) {
            for (Element e : children(m)) {
                modules.add(e.getTextContent().trim());
            }
        }
        List<Managed> managed = new ArrayList<>();
        Element dm = child(child(project, "dependencyManagement"), "dependencies");
        if (dm != null) {
            for (Element d : children(dm)) {
                managed.add(new Managed(text(child(d, "groupId"), ""), text(child(d, "artifactId"), ""),
                        text(child(d, "version"), "")));
            }
        }
        return new PomModel(group, text(child(project, "artifactId"), ""), version, props, modules, managed);
    }

    /**
     * Replaces {@code ${name}} references, recursively, from a property map.
     *
     * @param value text with references
     * @param props property values
     * @return the text with every known reference replaced (unknown ones are left as they are)
     */
    public static String interpolate(String value, Map<String, String> props) {
        String current = value;
        for (int depth = 0; depth < 10 && current.contains("${"); depth++) {
            Matcher mt = PROPERTY.matcher(current);
            StringBuilder sb = new StringBuilder();
            while (mt.find()) {
                String v = props.get(mt.group(1));
                mt.appendReplacement(sb, Matcher.quoteReplacement(v == null ? mt.group() : v));
            }
            mt.appendTail(sb);
            if (sb.toString().equals(current)) {
                break;
            }
            current = sb.toString();
        }
        return current;
    }

    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Element e : children(parent)) {
            if (e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static List<Element> children(Element parent) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                out.add(e);
            }
        }
        return out;
    }

    private static String text(Element e, String dflt) {
        return e == null ? dflt : e.getTextContent().trim();
    }
}
