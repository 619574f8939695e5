package io.latchkey.spring;

import io.latchkey.LockClient;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code latchkey} health indicator on Spring Boot 4 ({@code spring-boot-health} on the class path), following
 * {@code management.health.latchkey.enabled}. On Boot 3.5 this configuration does not apply (the class it needs is
 * absent); {@code latchkey-spring-boot3-starter} brings the Boot 3 one.
 */
@AutoConfiguration(after = LatchkeyAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("latchkey")
public class LatchkeyHealthAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public LatchkeyHealthAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean(name = "latchkeyHealthIndicator")
    LatchkeyHealthIndicator latchkeyHealthIndicator(LockClient client, LatchkeyProperties properties) {
        return new LatchkeyHealthIndicator(client, properties.getHealth().getProbeName());
    }
}
