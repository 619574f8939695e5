package io.latchkey.micronaut;

import io.latchkey.LockEventListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * Records the client's lock events in a {@link MeterRegistry}:
 * <ul>
 *   <li>{@code latchkey.lock.acquire} (timer): the wait of each acquire, tag {@code outcome} = {@code acquired} or
 *       {@code timeout};</li>
 *   <li>{@code latchkey.lock.held} (timer): how long each hold lasted, from acquire to release;</li>
 *   <li>{@code latchkey.lock.lost} (counter): holds lost to a failed renewal, an expired lease or session;</li>
 *   <li>{@code latchkey.watchdog.renew} (timer): each batched renewal round trip.</li>
 * </ul>
 * The same meters as the Spring Boot starter's, registered when {@code micronaut-micrometer-core} provides a
 * {@code MeterRegistry} ({@code latchkey.metrics.enabled=false} turns them off). With
 * {@code latchkey.metrics.name-tag=true} every lock meter also carries tag {@code name}: one time series per lock name, so only for
 * applications with a few fixed names.
 */
@Singleton
@Requires(classes = MeterRegistry.class)
@Requires(beans = MeterRegistry.class)
@Requires(property = "latchkey.metrics.enabled", notEquals = "false")
final class MicrometerLockEventListener implements LockEventListener {

    static final String ACQUIRE = "latchkey.lock.acquire";
    static final String HELD = "latchkey.lock.held";
    static final String LOST = "latchkey.lock.lost";
    static final String RENEW = "latchkey.watchdog.renew";

    private final MeterRegistry registry;
    private final boolean nameTag;
    private final Timer acquired;
    private final Timer timedOut;
    private final Timer held;
    private final Counter lost;
    private final Timer renewed;

    @Inject
    MicrometerLockEventListener(MeterRegistry registry,
                                @Property(name = "latchkey.metrics.name-tag", defaultValue = "false") boolean nameTag) {
        this.registry = registry;
        this.nameTag = nameTag;
        this.acquired = acquireTimer("acquired", Tags.empty());
        this.timedOut = acquireTimer("timeout", Tags.empty());
        this.held = heldTimer(Tags.empty());
        this.lost = lostCounter(Tags.empty());
        this.renewed = Timer.builder(RENEW).description("Batched watchdog renewals of held leases")
                .register(registry);
    }

    @Override
    public void acquired(String lockName, Duration waited) {
        (nameTag ? acquireTimer("acquired", name(lockName)) : acquired).record(waited);
    }

    @Override
    public void timedOut(String lockName, Duration waited) {
        (nameTag ? acquireTimer("timeout", name(lockName)) : timedOut).record(waited);
    }

    @Override
    public void released(String lockName, Duration heldFor) {
        (nameTag ? heldTimer(name(lockName)) : held).record(heldFor);
    }

    @Override
    public void lost(String lockName) {
        (nameTag ? lostCounter(name(lockName)) : lost).increment();
    }

    @Override
    public void renewed(int leases, Duration took) {
        renewed.record(took);
    }

    private static Tags name(String lockName) {
        return Tags.of("name", lockName);
    }

    private Timer acquireTimer(String outcome, Tags tags) {
        return Timer.builder(ACQUIRE).description("Time waited to acquire a lock")
                .tags(tags).tag("outcome", outcome).register(registry);
    }

    private Timer heldTimer(Tags tags) {
        return Timer.builder(HELD).description("Time a lock was held").tags(tags).register(registry);
    }

    private Counter lostCounter(Tags tags) {
        return Counter.builder(LOST).description("Held locks lost before release").tags(tags).register(registry);
    }
}
