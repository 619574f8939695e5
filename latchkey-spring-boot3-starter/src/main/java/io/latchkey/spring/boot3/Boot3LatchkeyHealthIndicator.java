package io.latchkey.spring.boot3;

import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import java.util.Objects;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * Health {@code latchkey} on Spring Boot 3.5 (Boot 4's is {@code io.latchkey.spring.LatchkeyHealthIndicator}): UP
 * when the backend answers one cheap read ({@code isLocked()} of the probe lock, which changes nothing) within the
 * client's operation timeout, DOWN with the {@link LockUnavailableException}'s message otherwise.
 */
public class Boot3LatchkeyHealthIndicator implements HealthIndicator {

    private final LockClient client;
    private final String probeName;

    /**
     * Creates the indicator of {@code client}.
     *
     * @param client the client whose backend is checked; the caller keeps ownership
     * @param probeName the name of the lock whose {@code isLocked()} each check reads; it is never taken
     * @throws NullPointerException if an argument is null
     */
    public Boot3LatchkeyHealthIndicator(LockClient client, String probeName) {
        this.client = Objects.requireNonNull(client, "client");
        this.probeName = Objects.requireNonNull(probeName, "probeName");
    }

    @Override
    public Health health() {
        try {
            client.lock(probeName).isLocked();
            return Health.up().withDetail("clientId", client.clientId()).build();
        } catch (LockUnavailableException e) {
            return Health.down().withDetail("clientId", client.clientId())
                    .withDetail("error", String.valueOf(e.getMessage())).build();
        }
    }
}
