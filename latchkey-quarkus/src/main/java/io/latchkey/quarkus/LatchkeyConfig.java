package io.latchkey.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/**
 * The properties under {@code latchkey} of a Quarkus application: the backend's URI and the options of the
 * application's {@link io.latchkey.LockClient}. Durations are written as Quarkus writes them: {@code 30s}, {@code 500ms},
 * {@code PT30S}.
 */
@ConfigMapping(prefix = "latchkey")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface LatchkeyConfig {

    /**
     * The backend, e.g. {@code redis://localhost:6379}, {@code zookeeper://localhost:2181}, {@code etcd://…},
     * {@code jdbc:postgresql://…}, {@code file:///var/locks} or {@code mem://name} (in-process), as far as its backend
     * module is on the class path. Unset in dev and test mode: {@code mem://latchkey}, which needs no server (locks
     * of this JVM only; logged once at INFO). Unset in prod mode: the application fails to start.
     *
     * @return the backend's URI, when set
     */
    Optional<String> uri();

    /**
     * How long a lock taken without an explicit lease stays held after its holder stops renewing it (crash, pause,
     * lost connection); the watchdog renews such leases every third of it.
     *
     * @return the watchdog timeout
     */
    @WithDefault("30s")
    Duration watchdogTimeout();

    /**
     * How long one call to the backend may take before it fails with
     * {@link io.latchkey.LockUnavailableException}.
     *
     * @return the operation timeout
     */
    @WithDefault("5s")
    Duration operationTimeout();

    /**
     * A prefix for every lock name of the client, so that applications sharing one backend keep apart.
     *
     * @return the namespace, when set
     */
    Optional<String> namespace();

    /**
     * The name stored with each hold, shown by {@code DistributedLock.holder()}, {@code latchkey inspect} and the
     * console; the client's default is {@code host:pid}.
     *
     * @return the client name, when set
     */
    Optional<String> clientName();

    /**
     * The name of the lock whose {@code isLocked()} the readiness check reads (it is never taken).
     *
     * @return the probe lock's name
     */
    @WithDefault("latchkey:health")
    String healthProbeName();

    /**
     * Whether every lock meter also carries the tag {@code name}: one time series per lock name, so only for
     * applications with a few fixed names.
     *
     * @return whether the meters are tagged with the lock name
     */
    @WithDefault("false")
    boolean metricsNameTag();
}
