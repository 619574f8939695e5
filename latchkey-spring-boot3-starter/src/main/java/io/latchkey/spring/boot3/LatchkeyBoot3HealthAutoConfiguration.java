package io.latchkey.spring.boot3;

import io.latchkey.LockClient;
import io.latchkey.spring.LatchkeyAutoConfiguration;
import io.latchkey.spring.LatchkeyProperties;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code latchkey} health indicator on Spring Boot 3.5 (actuator's {@code HealthIndicator} on the class path),
 * following {@code management.health.latchkey.enabled}. Everything else comes from
 * {@code latchkey-spring-boot-starter}, whose auto-configuration uses only what Boot 3.5 and 4 share.
 */
@AutoConfiguration(after = LatchkeyAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(LockClient.class)
@ConditionalOnEnabledHealthIndicator("latchkey")
public class LatchkeyBoot3HealthAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public LatchkeyBoot3HealthAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean(name = "latchkeyHealthIndicator")
    Boot3LatchkeyHealthIndicator latchkeyHealthIndicator(LockClient client, LatchkeyProperties properties) {
        return new Boot3LatchkeyHealthIndicator(client, properties.getHealth().getProbeName());
    }
}
