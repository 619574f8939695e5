package io.latchkey.integration;

import io.latchkey.LockEventListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
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
 * With {@code nameTag} every lock meter also carries tag {@code name}: one time series per lock name, so only for
 * applications with a few fixed names.
 *
 * <p>The Spring Boot, Micronaut and Quarkus integrations register it (a framework's bean may extend it to take its
 * constructor arguments from the framework) when the application has a {@code MeterRegistry}; Micrometer is an
 * optional dependency of this module, needed only by this class.
 */
public class MicrometerLockEventListener implements LockEventListener {

    /** The acquire timer. */
    public static final String ACQUIRE = "latchkey.lock.acquire";
    /** The hold timer. */
    public static final String HELD = "latchkey.lock.held";
    /** The lost-hold counter. */
    public static final String LOST = "latchkey.lock.lost";
    /** The watchdog renewal timer. */
    public static final String RENEW = "latchkey.watchdog.renew";

    private final MeterRegistry registry;
    private final boolean nameTag;
    private final Timer acquired;
    private final Timer timedOut;
    private final Timer held;
    private final Counter lost;
    private final Timer renewed;

    /**
     * Registers the meters without a {@code name} tag in {@code registry}.
     *
     * @param registry where the meters go
     * @param nameTag whether every lock meter also carries tag {@code name} (one time series per lock name)
     */
    public MicrometerLockEventListener(MeterRegistry registry, boolean nameTag) {
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
    public final void acquired(String lockName, Duration waited) {
        (nameTag ? acquireTimer("acquired", name(lockName)) : acquired).record(waited);
    }

    @Override
    public final void timedOut(String lockName, Duration waited) {
        (nameTag ? acquireTimer("timeout", name(lockName)) : timedOut).record(waited);
    }

    @Override
    public final void released(String lockName, Duration heldFor) {
        (nameTag ? heldTimer(name(lockName)) : held).record(heldFor);
    }

    @Override
    public final void lost(String lockName) {
        (nameTag ? lostCounter(name(lockName)) : lost).increment();
    }

    @Override
    public final void renewed(int leases, Duration took) {
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
