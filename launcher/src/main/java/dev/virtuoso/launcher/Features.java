package dev.virtuoso.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;

import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * The features of the project's Karaf features descriptor, reduced to what the launcher acts on:
 * each feature's referenced features and bundles. The descriptor is validated at build time by
 * Karaf's own resolver (karaf-maven-plugin {@code verify}), so this reader only walks it. Immutable.
 */
final class Features {

    /** Class-path resource of the descriptor inside the virtuoso-features jar. */
    static final String RESOURCE = "/dev/virtuoso/features/features.xml";

    private record Feature(List<String> features, List<FeatureBundle> bundles) {
    }

    private final Map<String, Feature> byName;

    private Features(Map<String, Feature> byName) {
        this.byName = Map.copyOf(byName);
    }

    /**
     * @return the descriptor shipped in the virtuoso-features jar on the class path
     * @throws IOException if it is missing or not well-formed XML
     */
    static Features load() throws IOException {
        try (InputStream in = Features.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException("virtuoso-features jar with " + RESOURCE + " is not on the class path");
            }
            return read(in);
        }
    }

    /**
     * @param in a features descriptor
     * @return its features
     * @throws IOException if it is not well-formed XML
     */
    static Features read(InputStream in) throws IOException {
        Element root;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            root = f.newDocumentBuilder().parse(in).getDocumentElement();
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("features descriptor: " + e.getMessage(), e);
        }
        Map<String, Feature> byName = new HashMap<>();
        for (Element fe : children(root, "feature")) {
            List<String> refs = new ArrayList<>();
            List<FeatureBundle> bundles = new ArrayList<>();
            for (Element c : children(fe, null)) {
                if (c.getLocalName().equals("feature")) {
                    refs.add(c.getTextContent().trim());
                } else if (c.getLocalName().equals("bundle")) {
                    bundles.add(new FeatureBundle(c.getTextContent().trim(), !"false".equals(c.getAttribute("start"))));
                }
            }
            byName.put(fe.getAttribute("name"), new Feature(List.copyOf(refs), List.copyOf(bundles)));
        }
        return new Features(byName);
    }

    /** @return the names of every feature */
    List<String> names() {
        return byName.keySet().stream().sorted().toList();
    }

    /**
     * @param names features to install
     * @return their bundles and those of the features they reference, referenced features first,
     *     each location once
     * @throws IOException naming a feature the descriptor does not define
     */
    List<FeatureBundle> bundlesFor(List<String> names) throws IOException {
        Map<String, FeatureBundle> out = new LinkedHashMap<>();
        for (String n : names) {
            visit(n, new ArrayList<>(), out);
        }
        return List.copyOf(out.values());
    }

    private void visit(String name, List<String> path, Map<String, FeatureBundle> out) throws IOException {
        Feature f = byName.get(name);
        if (f == null) {
            throw new IOException("no feature named " + name + " (features: " + String.join(", ", names()) + ")");
        }
        if (path.contains(name)) {
            return;
        }
        path.add(name);
        for (String ref : f.features()) {
            visit(ref, path, out);
        }
        path.remove(path.size() - 1);
        for (FeatureBundle b : f.bundles()) {
            out.putIfAbsent(b.location(), b);
        }
    }

    private static List<Element> children(Element parent, String localName) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && (localName == null || localName.equals(e.getLocalName()))) {
                out.add(e);
            }
        }
        return out;
    }
}
