package io.latchkey.micronaut;

import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.micronaut.context.annotation.Requires;
import io.micronaut.health.HealthStatus;
import io.micronaut.management.health.indicator.AbstractHealthIndicator;
import io.micronaut.management.health.indicator.HealthIndicator;
import jakarta.inject.Singleton;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Health {@code latchkey}, when {@code micronaut-management} is on the class path: UP when the backend answers one
 * cheap read ({@code isLocked()} of the probe lock {@code latchkey.health-probe-name}, which changes nothing) within
 * the client's operation timeout, DOWN with the {@link LockUnavailableException}'s message otherwise. The check runs
 * on Micronaut's I/O executor, never on an event loop. {@code latchkey.health.enabled=false} turns it off.
 */
@Singleton
@Requires(classes = HealthIndicator.class)
@Requires(beans = LockClient.class)
@Requires(property = "latchkey.health.enabled", notEquals = "false")
public class LatchkeyHealthIndicator extends AbstractHealthIndicator<Map<String, Object>> {

    private final LockClient client;
    private final String probeName;

    /**
     * Creates the indicator of {@code client}.
     *
     * @param client the client whose backend is checked
     * @param configuration where {@code latchkey.health-probe-name} is read from
     */
    public LatchkeyHealthIndicator(LockClient client, LatchkeyConfiguration configuration) {
        this.client = client;
        this.probeName = configuration.getHealthProbeName();
    }

    @Override
    protected Map<String, Object> getHealthInformation() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("clientId", client.clientId());
        try {
            client.lock(probeName).isLocked();
            healthStatus = HealthStatus.UP;
        } catch (LockUnavailableException e) {
            healthStatus = HealthStatus.DOWN;
            details.put("error", String.valueOf(e.getMessage()));
        }
        return details;
    }

    @Override
    protected String getName() {
        return "latchkey";
    }
}
