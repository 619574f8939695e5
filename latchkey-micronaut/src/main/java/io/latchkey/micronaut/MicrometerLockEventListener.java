package io.latchkey.micronaut;

import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The client's lock events in the application's {@link MeterRegistry}: the meters of
 * {@link io.latchkey.integration.MicrometerLockEventListener}, the same as the Spring Boot starter's, registered when
 * {@code micronaut-micrometer-core} provides a {@code MeterRegistry} ({@code latchkey.metrics.enabled=false} turns
 * them off). With {@code latchkey.metrics.name-tag=true} every lock meter also carries tag {@code name}: one time
 * series per lock name, so only for applications with a few fixed names.
 */
@Singleton
@Requires(classes = MeterRegistry.class)
@Requires(beans = MeterRegistry.class)
@Requires(property = "latchkey.metrics.enabled", notEquals = "false")
final class MicrometerLockEventListener extends io.latchkey.integration.MicrometerLockEventListener {

    @Inject
    MicrometerLockEventListener(MeterRegistry registry,
                                @Property(name = "latchkey.metrics.name-tag", defaultValue = "false") boolean nameTag) {
        super(registry, nameTag);
    }
}
