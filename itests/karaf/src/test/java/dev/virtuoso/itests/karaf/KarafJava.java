package dev.virtuoso.itests.karaf;

import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.vmOption;

import org.ops4j.pax.exam.Option;

/**
 * The JVM options Karaf's own {@code bin/karaf} script passes on Java 9 and later (Pax Exam's
 * Karaf container starts {@code java} itself and does not add them): the endorsed spec locator
 * patched into java.base and java.xml, and the packages Karaf's bundles reach reflectively.
 */
final class KarafJava {
    private KarafJava() {
    }

    static Option options(String karafVersion) {
        String[] args = {
            "--add-reads=java.xml=java.logging",
            "--add-exports=java.base/org.apache.karaf.specs.locator=java.xml,ALL-UNNAMED",
            "--patch-module", "java.base=lib/endorsed/org.apache.karaf.specs.locator-" + karafVersion + ".jar",
            "--patch-module", "java.xml=lib/endorsed/org.apache.karaf.specs.java.xml-" + karafVersion + ".jar",
            "--add-opens", "java.base/java.security=ALL-UNNAMED",
            "--add-opens", "java.base/java.net=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang=ALL-UNNAMED",
            "--add-opens", "java.base/java.util=ALL-UNNAMED",
            "--add-opens", "java.naming/javax.naming.spi=ALL-UNNAMED",
            "--add-opens", "java.rmi/sun.rmi.transport.tcp=ALL-UNNAMED",
            "--add-exports=java.base/sun.net.www.protocol.file=ALL-UNNAMED",
            "--add-exports=java.base/sun.net.www.protocol.ftp=ALL-UNNAMED",
            "--add-exports=java.base/sun.net.www.protocol.http=ALL-UNNAMED",
            "--add-exports=java.base/sun.net.www.protocol.https=ALL-UNNAMED",
            "--add-exports=java.base/sun.net.www.protocol.jar=ALL-UNNAMED",
            "--add-exports=java.base/sun.net.www.content.text=ALL-UNNAMED",
            "--add-exports=jdk.xml.dom/org.w3c.dom.html=ALL-UNNAMED",
            "--add-exports=jdk.naming.rmi/com.sun.jndi.url.rmi=ALL-UNNAMED",
            "--add-exports=java.rmi/sun.rmi.registry=ALL-UNNAMED",
            "--add-exports=java.security.sasl/com.sun.security.sasl=ALL-UNNAMED",
            "--add-exports=java.naming/com.sun.jndi.ldap=ALL-UNNAMED",
        };
        Option[] options = new Option[args.length];
        for (int i = 0; i < args.length; i++) {
            options[i] = vmOption(args[i]);
        }
        return composite(options);
    }
}
