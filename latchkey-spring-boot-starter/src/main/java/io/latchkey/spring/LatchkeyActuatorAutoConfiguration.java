package io.latchkey.spring;

import io.latchkey.LockClient;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code latchkey} actuator endpoint and health indicator, when Spring Boot Actuator is on the class path and a
 * {@link LockClient} bean exists. The endpoint is exposed as any other ({@code management.endpoints.web.exposure
 * .include=latchkey}); the health indicator follows {@code management.health.latchkey.enabled}.
 */
@AutoConfiguration(after = LatchkeyAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(LockClient.class)
public class LatchkeyActuatorAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(endpoint = LatchkeyEndpoint.class)
    LatchkeyEndpoint latchkeyEndpoint(LockClient client) {
        return new LatchkeyEndpoint(client);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(HealthIndicator.class)
    @ConditionalOnEnabledHealthIndicator("latchkey")
    static class Health {

        @Bean
        @ConditionalOnMissingBean(name = "latchkeyHealthIndicator")
        LatchkeyHealthIndicator latchkeyHealthIndicator(LockClient client, LatchkeyProperties properties) {
            return new LatchkeyHealthIndicator(client, properties.getHealth().getProbeName());
        }
    }
}
