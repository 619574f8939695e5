package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** What a Spring Boot application sees: the starter found through its registration files, next to Boot's own. */
class SpringApplicationTest {

    @Test
    void theAutoConfigurationsAreRegistered() {
        List<String> candidates = ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader())
                .getCandidates();
        assertThat(candidates).contains(LatchkeyAutoConfiguration.class.getName(),
                LatchkeyMetricsAutoConfiguration.class.getName(), LatchkeyActuatorAutoConfiguration.class.getName(),
                LatchkeyHealthAutoConfiguration.class.getName());
        // Boot's own analyzers need constructor arguments that only SpringApplication supplies: skip those
        SpringFactoriesLoader.FailureHandler skipOthers =
                SpringFactoriesLoader.FailureHandler.handleMessage((message, failure) -> { });
        assertThat(SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class, null, skipOthers))
                .hasAtLeastOneElementOfType(LockClientNotConfiguredFailureAnalyzer.class);
    }

    @Test
    void anApplicationGetsTheClientWithBootsOwnMeterRegistry() {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(App.class)
                .web(WebApplicationType.NONE)
                .properties("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri(),
                        "management.endpoints.web.exposure.include=latchkey")
                .run()) {
            DistributedLock lock = context.getBean(LockClient.class).lock("boot");
            lock.lock();
            lock.unlock();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("latchkey.lock.held").timer().count()).isEqualTo(1);
            assertThat(context.getBeansOfType(LatchkeyEndpoint.class)).hasSize(1);
            assertThat(context.getBeansOfType(LatchkeyHealthIndicator.class)).hasSize(1);
        }
    }

    @Test
    void anApplicationWithoutABackendFailsToStartNamingTheChoices() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE).run())
                .rootCause().isInstanceOf(LockClientNotConfiguredException.class)
                .hasMessageContaining("latchkey.uri is not set");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }
}
