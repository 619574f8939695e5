package io.latchkey.spring;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.function.Supplier;

/**
 * Micrometer observations of the annotated methods' locks, beside the meters: {@value #ACQUIRE} spans the wait for
 * the lock (low-cardinality key {@code outcome} = {@code acquired}, {@code timeout}, {@code skipped} or
 * {@code error}), {@value #HOLD} spans the hold, from acquisition to release, and is the current observation while
 * the method runs, so its spans are children of it. Both carry {@code latchkey.annotation} ({@code locked} or
 * {@code schedule}, low cardinality) and the lock name as high-cardinality key {@code latchkey.lock.name}; the hold
 * also carries {@code latchkey.fencing.token}. Through Micrometer Tracing (e.g. the OpenTelemetry bridge) they show
 * up as spans named {@code latchkey acquire} and {@code latchkey hold}; switch them off with Spring Boot's
 * {@code management.observations.enable.latchkey=false}. Names differ from the meters'
 * ({@code latchkey.lock.acquire}) so that a metrics handler on the observations never registers a second meter of
 * the same name with other tags.
 */
final class LockObservations {

    static final String ACQUIRE = "latchkey.acquire";
    static final String HOLD = "latchkey.hold";

    private final Supplier<ObservationRegistry> registrySource;
    private volatile ObservationRegistry registry;

    /** {@code registry} may supply null (no registry bean): then every observation is a no-op. */
    LockObservations(Supplier<ObservationRegistry> registry) {
        this.registrySource = registry;
    }

    static LockObservations none() {
        return new LockObservations(() -> ObservationRegistry.NOOP);
    }

    Observation startAcquire(String lockName, String annotation) {
        return Observation.createNotStarted(ACQUIRE, registry())
                .contextualName("latchkey acquire")
                .lowCardinalityKeyValue("latchkey.annotation", annotation)
                .highCardinalityKeyValue("latchkey.lock.name", lockName)
                .start();
    }

    static void endAcquire(Observation acquire, String outcome, Throwable error) {
        acquire.lowCardinalityKeyValue("outcome", outcome);
        if (error != null) {
            acquire.error(error);
        }
        acquire.stop();
    }

    Observation startHold(String lockName, String annotation, long fencingToken) {
        Observation hold = Observation.createNotStarted(HOLD, registry())
                .contextualName("latchkey hold")
                .lowCardinalityKeyValue("latchkey.annotation", annotation)
                .highCardinalityKeyValue("latchkey.lock.name", lockName);
        if (fencingToken >= 0) {
            hold.highCardinalityKeyValue("latchkey.fencing.token", Long.toString(fencingToken));
        }
        return hold.start();
    }

    private ObservationRegistry registry() {
        ObservationRegistry r = registry;
        if (r == null) {
            r = registrySource.get();
            if (r == null) {
                return ObservationRegistry.NOOP;
            }
            registry = r;
        }
        return r;
    }
}
