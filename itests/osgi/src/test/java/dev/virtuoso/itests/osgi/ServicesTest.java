package dev.virtuoso.itests.osgi;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

import org.apache.felix.service.command.CommandProcessor;
import org.junit.Test;
import org.osgi.framework.Constants;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ManagedServiceFactory;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

import dev.virtuoso.api.MultipathConnector;
import dev.virtuoso.decomposer.Decomposer;
import dev.virtuoso.pathmonitor.api.PathMonitorFactory;
import dev.virtuoso.policy.cc.chunkprobe.api.ChunkProbeStatistics;
import dev.virtuoso.reassembler.Reassembler;
import dev.virtuoso.spi.policy.CongestionAvoidancePolicy;
import dev.virtuoso.spi.policy.LoadBalancerPolicy;
import dev.virtuoso.spi.verbs.VerbsProvider;

/**
 * The services the bundles publish are registered, by the expected bundle, and can be obtained
 * (getting a service activates a delayed DS component, so activation errors show up here).
 */
public class ServicesTest extends VirtuosoOsgiTestSupport {

    @Test
    public void configurationAdminIsPublishedByFelixConfigAdmin() {
        try (TrackedService<ConfigurationAdmin> cm = awaitService(
                ConfigurationAdmin.class, null, "org.apache.felix.configadmin", SERVICE_TIMEOUT)) {
            assertNotNull(cm.service());
        }
    }

    @Test
    public void serviceComponentRuntimeIsPublishedByFelixScr() {
        try (TrackedService<ServiceComponentRuntime> scr = awaitService(
                ServiceComponentRuntime.class, null, "org.apache.felix.scr", SERVICE_TIMEOUT)) {
            assertEquals("org.apache.felix.scr", scr.publisher());
        }
    }

    @Test
    public void gogoCommandProcessorIsPublishedByGogoRuntime() {
        try (TrackedService<CommandProcessor> gogo = awaitService(
                CommandProcessor.class, null, "org.apache.felix.gogo.runtime", SERVICE_TIMEOUT)) {
            assertNotNull(gogo.service());
        }
    }

    @Test
    public void multipathConnectorIsPublishedByQpManager() {
        try (TrackedService<MultipathConnector> connector = awaitService(
                MultipathConnector.class, null, "dev.virtuoso.qpmanager", SERVICE_TIMEOUT)) {
            assertNotNull(connector.service());
        }
    }

    @Test
    public void softVerbsProviderIsPublishedByVerbsSoft() {
        try (TrackedService<VerbsProvider> soft = awaitService(VerbsProvider.class,
                "(" + VerbsProvider.PROVIDER_PROPERTY + "=soft)", "dev.virtuoso.verbs.soft", SERVICE_TIMEOUT)) {
            assertEquals("soft", soft.service().name());
        }
    }

    @Test
    public void decomposerIsPublishedByDecomposerBundle() {
        try (TrackedService<Decomposer> decomposer = awaitService(
                Decomposer.class, null, "dev.virtuoso.decomposer", SERVICE_TIMEOUT)) {
            assertNotNull(decomposer.service());
        }
    }

    @Test
    public void reassemblerIsPublishedByReassemblerBundle() {
        try (TrackedService<Reassembler> reassembler = awaitService(
                Reassembler.class, null, "dev.virtuoso.reassembler", SERVICE_TIMEOUT)) {
            assertNotNull(reassembler.service());
        }
    }

    @Test
    public void pathMonitorFactoryIsPublishedByPathMonitorBundle() {
        try (TrackedService<PathMonitorFactory> monitors = awaitService(
                PathMonitorFactory.class, null, "dev.virtuoso.pathmonitor", SERVICE_TIMEOUT)) {
            assertNotNull(monitors.service());
        }
    }

    @Test
    public void loadBalancerPoliciesArePublishedUnderTheirNames() {
        assertLoadBalancer("lb-single", "dev.virtuoso.policy.lb.single");
        assertLoadBalancer("lb-roundrobin", "dev.virtuoso.policy.lb.roundrobin");
        assertLoadBalancer("lb-proportional", "dev.virtuoso.policy.lb.proportional");
        assertLoadBalancer("lb-adaptive", "dev.virtuoso.policy.lb.adaptive");
    }

    @Test
    public void congestionAvoidancePoliciesArePublishedUnderTheirNames() {
        assertCongestionAvoidance("cc-fixed", "dev.virtuoso.policy.cc.fixed");
        assertCongestionAvoidance("cc-chunkprobe", "dev.virtuoso.policy.cc.chunkprobe");
    }

    @Test
    public void chunkProbeStatisticsArePublishedByChunkProbePolicy() {
        try (TrackedService<ChunkProbeStatistics> statistics = awaitService(
                ChunkProbeStatistics.class, null, "dev.virtuoso.policy.cc.chunkprobe", SERVICE_TIMEOUT)) {
            assertNotNull(statistics.service());
        }
    }

    @Test
    public void policyBindingsFactoryIsPublishedByPolicyBindingBundle() {
        try (TrackedService<ManagedServiceFactory> bindings = awaitService(ManagedServiceFactory.class,
                "(" + Constants.SERVICE_PID + "=dev.virtuoso.policy.binding)", "dev.virtuoso.policy.binding",
                SERVICE_TIMEOUT)) {
            assertNotNull(bindings.service().getName());
        }
    }

    private void assertLoadBalancer(String name, String bundle) {
        try (TrackedService<LoadBalancerPolicy> policy = awaitService(LoadBalancerPolicy.class,
                "(" + LoadBalancerPolicy.NAME_PROPERTY + "=" + name + ")", bundle, SERVICE_TIMEOUT)) {
            assertEquals("name() of the policy registered as " + name, name, policy.service().name());
        }
    }

    private void assertCongestionAvoidance(String name, String bundle) {
        try (TrackedService<CongestionAvoidancePolicy> policy = awaitService(CongestionAvoidancePolicy.class,
                "(" + LoadBalancerPolicy.NAME_PROPERTY + "=" + name + ")", bundle, SERVICE_TIMEOUT)) {
            assertEquals("name() of the policy registered as " + name, name, policy.service().name());
        }
    }
}
