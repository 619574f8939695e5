package io.latchkey.micronaut;

import io.latchkey.ClientOptions;
import io.micronaut.context.annotation.ConfigurationProperties;
import java.time.Duration;

/**
 * The {@code latchkey.*} configuration of the application's {@link io.latchkey.LockClient}:
 *
 * <pre>
 * latchkey:
 *   uri: redis://localhost:6379      # required outside the test and dev environments
 *   watchdog-timeout: 30s            # lease of locks taken without a lease time; renewed every third of it
 *   operation-timeout: 5s            # bound of every backend command
 *   namespace: orders                # prefix of every lock name, so applications can share a backend
 *   client-name: billing-7           # stored with each hold, shown by holder() and inspect (default host:pid)
 *   shutdown-grace-period: 10s       # how long running @Locked/@LockedSchedule work may take to end on shutdown
 *   health-probe-name: latchkey-health-probe   # the lock the health check reads (never taken)
 * </pre>
 *
 * <p>Without {@code latchkey.uri}, the {@code test} and {@code dev} environments get an in-memory client
 * ({@code mem://}, one per application context, logged once); every other environment fails to start, naming the
 * property.
 */
@ConfigurationProperties("latchkey")
public class LatchkeyConfiguration {

    private String uri;
    private Duration watchdogTimeout = ClientOptions.DEFAULT_WATCHDOG_TIMEOUT;
    private Duration operationTimeout = ClientOptions.DEFAULT_OPERATION_TIMEOUT;
    private String namespace = "";
    private String clientName;
    private Duration shutdownGracePeriod = Duration.ofSeconds(10);
    private String healthProbeName = "latchkey-health-probe";

    /** Creates the configuration with its defaults; Micronaut binds {@code latchkey.*} onto it. */
    public LatchkeyConfiguration() {
    }

    /** {@return {@code latchkey.uri}: the backend, as {@link io.latchkey.LockClient#connect(String)} takes it; null if unset} */
    public String getUri() {
        return uri;
    }

    /**
     * Sets {@code latchkey.uri}.
     *
     * @param uri the backend's URI, e.g. {@code redis://localhost:6379}
     */
    public void setUri(String uri) {
        this.uri = uri;
    }

    /** {@return {@code latchkey.watchdog-timeout}: the lease of locks taken without a lease time (default 30 s)} */
    public Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    /**
     * Sets {@code latchkey.watchdog-timeout}.
     *
     * @param watchdogTimeout the watchdog lease, checked by {@link ClientOptions.Builder#watchdogTimeout}
     */
    public void setWatchdogTimeout(Duration watchdogTimeout) {
        this.watchdogTimeout = watchdogTimeout;
    }

    /** {@return {@code latchkey.operation-timeout}: the bound of each backend command (default 5 s)} */
    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    /**
     * Sets {@code latchkey.operation-timeout}.
     *
     * @param operationTimeout the bound of each command, checked by {@link ClientOptions.Builder#operationTimeout}
     */
    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    /** {@return {@code latchkey.namespace}: the prefix of every lock name (default none)} */
    public String getNamespace() {
        return namespace;
    }

    /**
     * Sets {@code latchkey.namespace}.
     *
     * @param namespace the prefix, checked by {@link ClientOptions.Builder#namespace}
     */
    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    /** {@return {@code latchkey.client-name}: the name stored with each hold (default {@code host:pid}); null if unset} */
    public String getClientName() {
        return clientName;
    }

    /**
     * Sets {@code latchkey.client-name}.
     *
     * @param clientName the name, checked by {@link ClientOptions.Builder#clientName}
     */
    public void setClientName(String clientName) {
        this.clientName = clientName;
    }

    /**
     * {@return {@code latchkey.shutdown-grace-period}: how long the application's shutdown waits for running
     * {@code @Locked} and {@code @LockedSchedule} methods (default 10 s)}
     */
    public Duration getShutdownGracePeriod() {
        return shutdownGracePeriod;
    }

    /**
     * Sets {@code latchkey.shutdown-grace-period}.
     *
     * @param shutdownGracePeriod the wait, zero or positive
     * @throws IllegalArgumentException if it is negative
     */
    public void setShutdownGracePeriod(Duration shutdownGracePeriod) {
        if (shutdownGracePeriod.isNegative()) {
            throw new IllegalArgumentException("latchkey.shutdown-grace-period must not be negative but was "
                    + shutdownGracePeriod);
        }
        this.shutdownGracePeriod = shutdownGracePeriod;
    }

    /** {@return {@code latchkey.health-probe-name}: the lock whose {@code isLocked()} the health check reads} */
    public String getHealthProbeName() {
        return healthProbeName;
    }

    /**
     * Sets {@code latchkey.health-probe-name}.
     *
     * @param healthProbeName the name of the lock the health indicator reads; it is never taken
     */
    public void setHealthProbeName(String healthProbeName) {
        this.healthProbeName = healthProbeName;
    }
}
