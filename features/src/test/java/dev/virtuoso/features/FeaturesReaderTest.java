package dev.virtuoso.features;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

class FeaturesReaderTest {

    private static final String NS = FeaturesReader.NAMESPACE;

    private static FeatureRepository read(String xml) throws Exception {
        return new FeaturesReader().read(new ByteArrayInputStream(xml.getBytes(StandardCharsets.UTF_8)), "test.xml");
    }

    private static List<String> problems(String xml) {
        FeaturesException e = assertThrows(FeaturesException.class, () -> read(xml));
        return e.problems();
    }

    @Test
    void readsFeaturesBundlesAndDependencies() throws Exception {
        FeatureRepository repo = read("""
                <features name="r" xmlns="%s">
                  <feature name="a" version="1.0" description="A">
                    <details>help</details>
                    <bundle start-level="30" dependency="true">mvn:g/x/1</bundle>
                    <bundle start="false">mvn:g/y/1</bundle>
                  </feature>
                  <feature name="b" version="1.0">
                    <feature version="1.0">a</feature>
                    <bundle>mvn:g/z/1</bundle>
                    <config name="pid">k=v</config>
                  </feature>
                </features>""".formatted(NS));
        assertEquals("r", repo.name());
        Feature a = repo.feature("a").orElseThrow();
        assertEquals("help", a.details());
        assertEquals(new BundleEntry("mvn:g/x/1", 30, true, true), a.bundles().get(0));
        assertEquals(new BundleEntry("mvn:g/y/1", 0, false, false), a.bundles().get(1));
        Feature b = repo.feature("b").orElseThrow();
        assertEquals(List.of(new FeatureDependency("a", "1.0", false, false)), b.dependencies());
        assertEquals(List.of("config"), b.ignoredElements());
        assertEquals(List.of("mvn:g/x/1", "mvn:g/y/1", "mvn:g/z/1"),
                repo.bundlesFor(List.of("b")).stream().map(BundleEntry::location).toList());
    }

    @Test
    void rejectsWrongNamespace() {
        List<String> p = problems("<features name='r' xmlns='http://karaf.apache.org/xmlns/features/v1.2.0'/>");
        assertTrue(p.get(0).contains("not in namespace"), p::toString);
    }

    @Test
    void rejectsMissingRequiredAttributesAndBadTypes() {
        List<String> p = problems("""
                <features xmlns="%s">
                  <feature name="" start-level="x" hidden="maybe">
                    <bundle start="yes">mvn:g/a/1</bundle>
                    <library type="weird">lib</library>
                    <config>no name</config>
                  </feature>
                </features>""".formatted(NS));
        String all = String.join("\n", p);
        assertTrue(all.contains("<features> needs attribute 'name'"), all);
        assertTrue(all.contains("name=\"\" on <feature>: must not be empty"), all);
        assertTrue(all.contains("start-level=\"x\" on <feature>: not an xs:int"), all);
        assertTrue(all.contains("hidden=\"maybe\""), all);
        assertTrue(all.contains("start=\"yes\" on <bundle>: not an xs:boolean"), all);
        assertTrue(all.contains("type=\"weird\""), all);
        assertTrue(all.contains("<config> needs attribute 'name'"), all);
    }

    @Test
    void rejectsMisplacedElementsTextAndUnknownAttributes() {
        List<String> p = problems("""
                <features name="r" xmlns="%s">
                  stray text
                  <bundle>mvn:g/a/1</bundle>
                  <feature name="f" colour="red">
                    <scoping/>
                    <bundle>mvn:g/a/1</bundle>
                    <bundle></bundle>
                    <feature/>
                  </feature>
                </features>""".formatted(NS));
        String all = String.join("\n", p);
        assertTrue(all.contains("<bundle> is not allowed in <features>"), all);
        assertTrue(all.contains("<features> must not contain text"), all);
        assertTrue(all.contains("attribute 'colour' is not allowed on <feature>"), all);
        assertTrue(all.contains("<scoping> must be the last element"), all);
        assertTrue(all.contains("<bundle> needs a location"), all);
        assertTrue(all.contains("<feature> needs a feature name"), all);
    }

    @Test
    void reportsLineNumbersAndMalformedXml() {
        List<String> p = problems("<features name='r' xmlns='" + NS + "'>\n<feature name='a'>\n</features>");
        assertTrue(p.get(0).startsWith("line 3: not well-formed XML"), p::toString);
    }

    @Test
    void refusesDoctypes() {
        List<String> p = problems("<!DOCTYPE features [<!ENTITY x SYSTEM 'file:///etc/passwd'>]>"
                + "<features name='r' xmlns='" + NS + "'>&x;</features>");
        assertFalse(p.isEmpty());
        assertTrue(p.get(0).contains("DOCTYPE"), p::toString);
    }

    @Test
    void resolvesDependencyOrderAndDetectsCyclesAndUnknownFeatures() throws Exception {
        FeatureRepository repo = read("""
                <features name="r" xmlns="%s">
                  <feature name="base"><bundle>mvn:g/base/1</bundle></feature>
                  <feature name="top"><feature>mid</feature><bundle>mvn:g/top/1</bundle><bundle>mvn:g/base/1</bundle></feature>
                  <feature name="mid"><feature>base</feature><bundle>mvn:g/mid/1</bundle></feature>
                  <feature name="c1"><feature>c2</feature></feature>
                  <feature name="c2"><feature>c1</feature></feature>
                  <feature name="lost"><feature version="2.0">base</feature><feature>ghost</feature></feature>
                </features>""".formatted(NS));
        assertEquals(List.of("mvn:g/base/1", "mvn:g/mid/1", "mvn:g/top/1"),
                repo.bundlesFor(List.of("top")).stream().map(BundleEntry::location).toList());
        String cycle = String.join("\n", assertThrows(FeaturesException.class,
                () -> repo.bundlesFor(List.of("c1"))).problems());
        assertTrue(cycle.contains("cycle: c1 -> c2 -> c1"), cycle);
        String lost = String.join("\n", assertThrows(FeaturesException.class,
                () -> repo.bundlesFor(List.of("lost"))).problems());
        assertTrue(lost.contains("'base' version 2.0 asked"), lost);
        assertTrue(lost.contains("unknown feature 'ghost' (needed by lost)"), lost);
    }
}
