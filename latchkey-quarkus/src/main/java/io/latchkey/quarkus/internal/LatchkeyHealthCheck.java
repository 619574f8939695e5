package io.latchkey.quarkus.internal;

import io.latchkey.LockClient;
import io.latchkey.quarkus.LatchkeyConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness check {@code latchkey} (registered when quarkus-smallrye-health is present): UP when the client is open
 * and its backend answers one cheap read ({@code isLocked()} of the probe lock {@code latchkey.health-probe-name},
 * which changes nothing) within {@code latchkey.operation-timeout}; DOWN with the error otherwise.
 */
@Readiness
@ApplicationScoped
public class LatchkeyHealthCheck implements HealthCheck {

    @Inject
    LockClient client;

    @Inject
    LatchkeyConfig config;

    @Override
    public HealthCheckResponse call() {
        HealthCheckResponseBuilder response = HealthCheckResponse.named("latchkey");
        try {
            client.lock(config.healthProbeName()).isLocked();
            return response.up().withData("clientId", client.clientId()).build();
        } catch (RuntimeException e) {
            return response.down().withData("clientId", client.clientId())
                    .withData("error", e.getClass().getSimpleName() + ": " + e.getMessage()).build();
        }
    }
}
