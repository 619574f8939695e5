package io.latchkey.quarkus.internal;

import io.latchkey.quarkus.LatchkeyConfig;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;

/**
 * The client's lock events in the application's {@link MeterRegistry}: the meters of
 * {@link io.latchkey.integration.MicrometerLockEventListener}, the same as the Spring starter's. With
 * {@code latchkey.metrics-name-tag} every lock meter also carries tag {@code name}: one time series per lock name, so
 * only for applications with a few fixed names. Registered when quarkus-micrometer is present; the application's
 * client reports to it.
 */
@Singleton
public final class MicrometerLockEventListener extends io.latchkey.integration.MicrometerLockEventListener {

    /**
     * Creates the listener over the application's registry.
     *
     * @param registry where the meters go
     * @param config {@code latchkey.metrics-name-tag}
     */
    @Inject
    public MicrometerLockEventListener(MeterRegistry registry, LatchkeyConfig config) {
        super(registry, config.metricsNameTag());
    }
}
