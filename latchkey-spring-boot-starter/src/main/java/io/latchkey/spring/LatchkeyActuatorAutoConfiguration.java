package io.latchkey.spring;

import io.latchkey.LockClient;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code latchkey} actuator endpoint, when Spring Boot Actuator is on the class path and a {@link LockClient}
 * bean exists. The endpoint is exposed as any other ({@code management.endpoints.web.exposure.include=latchkey}).
 * Uses only what Spring Boot 4 and 3.5 share; the health indicator, whose package differs between them, has its own
 * auto-configuration ({@link LatchkeyHealthAutoConfiguration} on Boot 4).
 */
@AutoConfiguration(after = LatchkeyAutoConfiguration.class)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnBean(LockClient.class)
public class LatchkeyActuatorAutoConfiguration {

    /** Creates the auto-configuration; Spring calls it. */
    public LatchkeyActuatorAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(endpoint = LatchkeyEndpoint.class)
    LatchkeyEndpoint latchkeyEndpoint(LockClient client) {
        return new LatchkeyEndpoint(client);
    }
}
