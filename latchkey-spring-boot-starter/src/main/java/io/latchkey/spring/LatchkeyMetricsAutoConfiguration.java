package io.latchkey.spring;

import io.latchkey.integration.MicrometerLockEventListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for the auto-configured client (see {@link MicrometerLockEventListener} for their names), when
 * Micrometer is on the class path and the application has a {@link MeterRegistry} bean. The listener is a
 * {@link io.latchkey.LockEventListener} bean, which {@link LatchkeyAutoConfiguration} passes to the client through
 * its {@link io.latchkey.ClientOptions} on every path (URI or existing bean).
 */
@AutoConfiguration(before = LatchkeyAutoConfiguration.class, afterName = {
        // Spring Boot 4 (spring-boot-micrometer-metrics), then Boot 3.5 (spring-boot-actuator-autoconfigure)
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
@ConditionalOnProperty(prefix = "latchkey.metrics", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(LatchkeyProperties.class)
public class LatchkeyMetricsAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public LatchkeyMetricsAutoConfiguration() {
    }

    @Bean
    MicrometerLockEventListener latchkeyMicrometerLockEventListener(MeterRegistry registry,
                                                                    LatchkeyProperties properties) {
        return new MicrometerLockEventListener(registry, properties.getMetrics().isNameTag());
    }
}
