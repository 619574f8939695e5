package io.latchkey.spring;

import io.latchkey.ClientOptions;
import io.latchkey.LockEventListener;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code latchkey.*} properties. Each setter checks its value as {@link ClientOptions.Builder} does, so a bad
 * value fails the context at binding time naming the property; a value that is not a duration at all ("5 parsecs")
 * fails Spring's own conversion the same way.
 */
@ConfigurationProperties("latchkey")
public class LatchkeyProperties {

    /**
     * Where to connect, e.g. {@code redis://host:6379}, {@code zookeeper://host:2181}, {@code etcd://host:2379},
     * {@code jdbc:postgresql://…}, {@code file:///var/lib/app/locks}, {@code mem://name}. When unset, the client is built on the application's own Lettuce, Curator or DataSource
     * bean.
     */
    private String uri;

    /** Lease of a lock taken without a lease time; the watchdog renews it every third of this. */
    private Duration watchdogTimeout = ClientOptions.DEFAULT_WATCHDOG_TIMEOUT;

    /** Bound on one remote operation before it fails with LockUnavailableException. */
    private Duration operationTimeout = ClientOptions.DEFAULT_OPERATION_TIMEOUT;

    /** Prefix of every key, path or row the client creates. */
    private String namespace = "";

    /** The name recorded with each hold; {@code null}: the default, {@code host:pid}. */
    private String clientName;

    private final Jdbc jdbc = new Jdbc();
    private final LockedAnnotation locked = new LockedAnnotation();
    private final Metrics metrics = new Metrics();
    private final Health health = new Health();
    private final Shutdown shutdown = new Shutdown();
    private final Console console = new Console();

    /** Creates the properties with their defaults; Spring binds {@code latchkey.*} onto them. */
    public LatchkeyProperties() {
    }

    /** {@return {@code latchkey.uri}: where to connect, or {@code null} to build on the application's own beans} */
    public String getUri() {
        return uri;
    }

    /**
     * Sets {@code latchkey.uri}.
     *
     * @param uri the backend's URI, trimmed; {@code null} or blank to build on the application's own Lettuce,
     *        Curator or DataSource bean
     */
    public void setUri(String uri) {
        this.uri = (uri == null || uri.isBlank()) ? null : uri.trim();
    }

    /** {@return {@code latchkey.watchdog-timeout}: the lease of a lock taken without a lease time (default 30 s)} */
    public Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    /**
     * Sets {@code latchkey.watchdog-timeout}.
     *
     * @param watchdogTimeout the lease of watchdog-renewed locks, at least 30 ms; renewed every third of it
     * @throws NullPointerException if {@code watchdogTimeout} is null
     * @throws IllegalArgumentException if it is shorter than 30 ms
     */
    public void setWatchdogTimeout(Duration watchdogTimeout) {
        ClientOptions.builder().watchdogTimeout(watchdogTimeout);
        this.watchdogTimeout = watchdogTimeout;
    }

    /** {@return {@code latchkey.operation-timeout}: the bound on one remote operation (default 5 s)} */
    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    /**
     * Sets {@code latchkey.operation-timeout}.
     *
     * @param operationTimeout how long one remote operation may take before it fails with
     *        {@link io.latchkey.LockUnavailableException}; positive
     * @throws NullPointerException if {@code operationTimeout} is null
     * @throws IllegalArgumentException if it is not positive
     */
    public void setOperationTimeout(Duration operationTimeout) {
        ClientOptions.builder().operationTimeout(operationTimeout);
        this.operationTimeout = operationTimeout;
    }

    /** {@return {@code latchkey.namespace}: the prefix of every key, path or row; empty by default, never null} */
    public String getNamespace() {
        return namespace;
    }

    /**
     * Sets {@code latchkey.namespace}.
     *
     * @param namespace the prefix, at most 128 characters without control characters; {@code null} means empty
     * @throws IllegalArgumentException if it is longer than 128 characters or has control characters
     */
    public void setNamespace(String namespace) {
        String value = namespace == null ? "" : namespace;
        ClientOptions.builder().namespace(value);
        this.namespace = value;
    }

    /**
     * {@return {@code latchkey.client-name}: the name this client records with each hold, shown by {@code holder()},
     * {@code latchkey inspect} and the actuator endpoint; {@code null} (the default) means {@code host:pid}}
     */
    public String getClientName() {
        return clientName;
    }

    /**
     * Sets {@code latchkey.client-name}.
     *
     * @param clientName 1 to 128 characters without control characters, or {@code null} for {@code host:pid}
     * @throws IllegalArgumentException if it is empty, too long, has control characters or is not well-formed
     */
    public void setClientName(String clientName) {
        if (clientName != null) {
            ClientOptions.builder().clientName(clientName);
        }
        this.clientName = clientName;
    }

    /** {@return the {@code latchkey.jdbc.*} properties} */
    public Jdbc getJdbc() {
        return jdbc;
    }

    /** {@return the {@code latchkey.locked.*} properties} */
    public LockedAnnotation getLocked() {
        return locked;
    }

    /** {@return the {@code latchkey.metrics.*} properties} */
    public Metrics getMetrics() {
        return metrics;
    }

    /** {@return the {@code latchkey.health.*} properties} */
    public Health getHealth() {
        return health;
    }

    /** {@return the {@code latchkey.shutdown.*} properties} */
    public Shutdown getShutdown() {
        return shutdown;
    }

    /** {@return the {@code latchkey.console.*} properties} */
    public Console getConsole() {
        return console;
    }

    /**
     * The client options these properties describe, sending events to {@code listener}. The client is not closed
     * by the JVM's shutdown hook: the context closes it, after its locked methods ended (JVM shutdown hooks run in
     * parallel, so the hook would close it under them).
     */
    ClientOptions toClientOptions(LockEventListener listener) {
        ClientOptions.Builder b = ClientOptions.builder()
                .watchdogTimeout(watchdogTimeout)
                .operationTimeout(operationTimeout)
                .namespace(namespace)
                .eventListener(listener)
                .closeOnShutdown(false);
        return (clientName == null ? b : b.clientName(clientName)).build();
    }

    /** {@code latchkey.jdbc.*}: used when the client is built on the application's DataSource. */
    public static class Jdbc {

        /** The lease table, optionally schema-qualified. */
        private String tableName = "latchkey_locks";

        /** Whether a missing lease table is created at startup. */
        private boolean createTable = true;

        /** Creates the {@code latchkey.jdbc.*} properties with their defaults; Spring binds them. */
        public Jdbc() {
        }

        /** {@return {@code latchkey.jdbc.table-name}: the lease table, optionally schema-qualified} */
        public String getTableName() {
            return tableName;
        }

        /**
         * Sets {@code latchkey.jdbc.table-name}.
         *
         * @param tableName the lease table, optionally schema-qualified; trimmed
         * @throws IllegalArgumentException if it is {@code null} or blank
         */
        public void setTableName(String tableName) {
            if (tableName == null || tableName.isBlank()) {
                throw new IllegalArgumentException("latchkey.jdbc.table-name must not be empty");
            }
            this.tableName = tableName.trim();
        }

        /** {@return {@code latchkey.jdbc.create-table}: whether a missing lease table is created at startup} */
        public boolean isCreateTable() {
            return createTable;
        }

        /**
         * Sets {@code latchkey.jdbc.create-table}.
         *
         * @param createTable whether a missing lease table is created at startup (default {@code true})
         */
        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }
    }

    /** {@code latchkey.locked.*}: the {@link Locked} annotation. */
    public static class LockedAnnotation {

        /** Whether beans with {@code @Locked} methods are proxied. */
        private boolean enabled = true;

        /** Creates the {@code latchkey.locked.*} properties with their defaults; Spring binds them. */
        public LockedAnnotation() {
        }

        /** {@return {@code latchkey.locked.enabled}: whether beans with {@code @Locked} methods are proxied} */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code latchkey.locked.enabled}.
         *
         * @param enabled whether beans with {@code @Locked} methods are proxied (default {@code true})
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** {@code latchkey.metrics.*}. */
    public static class Metrics {

        /** Whether meters are recorded when a MeterRegistry bean exists. */
        private boolean enabled = true;

        /**
         * Whether meters carry the lock name as tag {@code name}. Off by default: names such as
         * {@code order:<id>} would create one time series per order.
         */
        private boolean nameTag = false;

        /** Creates the {@code latchkey.metrics.*} properties with their defaults; Spring binds them. */
        public Metrics() {
        }

        /** {@return {@code latchkey.metrics.enabled}: whether meters are recorded when a MeterRegistry bean exists} */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code latchkey.metrics.enabled}.
         *
         * @param enabled whether meters are recorded when a MeterRegistry bean exists (default {@code true})
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** {@return {@code latchkey.metrics.name-tag}: whether meters carry the lock name as tag {@code name}} */
        public boolean isNameTag() {
            return nameTag;
        }

        /**
         * Sets {@code latchkey.metrics.name-tag}.
         *
         * @param nameTag whether meters carry the lock name as tag {@code name} (default {@code false}: one time
         *        series per distinct name otherwise)
         */
        public void setNameTag(boolean nameTag) {
            this.nameTag = nameTag;
        }
    }

    /** {@code latchkey.health.*}. */
    public static class Health {

        /** The lock whose isLocked() the health indicator reads: one cheap remote read that changes nothing. */
        private String probeName = "latchkey-health-probe";

        /** Creates the {@code latchkey.health.*} properties with their defaults; Spring binds them. */
        public Health() {
        }

        /** {@return {@code latchkey.health.probe-name}: the lock whose {@code isLocked()} the health check reads} */
        public String getProbeName() {
            return probeName;
        }

        /**
         * Sets {@code latchkey.health.probe-name}.
         *
         * @param probeName the name of the lock the health indicator reads (default {@code latchkey-health-probe});
         *        it is never taken
         * @throws NullPointerException if {@code probeName} is null
         */
        public void setProbeName(String probeName) {
            this.probeName = Objects.requireNonNull(probeName, "probeName");
        }
    }

    /** {@code latchkey.shutdown.*}: how locked methods end when the context closes. */
    public static class Shutdown {

        /**
         * How long running locked methods may go on once the context closes, before they are interrupted; by default
         * {@code spring.lifecycle.timeout-per-shutdown-phase} (30 s) less a fifth of it, at most 5 s.
         */
        private Duration gracePeriod;

        /** Creates the {@code latchkey.shutdown.*} properties with their defaults; Spring binds them. */
        public Shutdown() {
        }

        /** {@return {@code latchkey.shutdown.grace-period}, or {@code null} for the default} */
        public Duration getGracePeriod() {
            return gracePeriod;
        }

        /**
         * Sets {@code latchkey.shutdown.grace-period}.
         *
         * @param gracePeriod how long running locked methods may go on once the context closes; not negative;
         *        {@code null} for the default (the phase timeout less a margin)
         * @throws IllegalArgumentException if it is negative
         */
        public void setGracePeriod(Duration gracePeriod) {
            if (gracePeriod != null && gracePeriod.isNegative()) {
                throw new IllegalArgumentException(
                        String.format("latchkey.shutdown.grace-period must not be negative but was %s", gracePeriod));
            }
            this.gracePeriod = gracePeriod;
        }
    }

    /**
     * {@code latchkey.console.*}: the lock console under the actuator ({@code /actuator/latchkey/console/}). Whoever
     * reaches the actuator's path can then see every lock name and holder of the namespace and force-unlock them.
     */
    public static class Console {

        /** Whether the console is served (servlet applications, with the latchkey endpoint exposed over HTTP). */
        private boolean enabled = false;

        /** Only locks whose names match this glob are shown. */
        private String pattern = "*";

        /** How often the console lists the namespace's locks while the application runs. */
        private Duration interval = Duration.ofSeconds(1);

        /** How many console pages are served live at once; each keeps one request thread while open. */
        private int maxStreams = 8;

        /** Creates the {@code latchkey.console.*} properties with their defaults; Spring binds them. */
        public Console() {
        }

        /** {@return {@code latchkey.console.enabled}: whether the console is served (default {@code false})} */
        public boolean isEnabled() {
            return enabled;
        }

        /**
         * Sets {@code latchkey.console.enabled}.
         *
         * @param enabled whether the console is served under the actuator (default {@code false})
         */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** {@return {@code latchkey.console.pattern}: the glob of the lock names shown (default {@code *})} */
        public String getPattern() {
            return pattern;
        }

        /**
         * Sets {@code latchkey.console.pattern}.
         *
         * @param pattern a glob: {@code *} any run, {@code ?} one character
         * @throws IllegalArgumentException if it is null or empty
         */
        public void setPattern(String pattern) {
            if (pattern == null || pattern.isEmpty()) {
                throw new IllegalArgumentException("latchkey.console.pattern must not be empty (* shows every lock)");
            }
            this.pattern = pattern;
        }

        /** {@return {@code latchkey.console.interval}: how often the locks are listed (default 1 s)} */
        public Duration getInterval() {
            return interval;
        }

        /**
         * Sets {@code latchkey.console.interval}.
         *
         * @param interval from 50 ms to 1 minute; each is one listing of the namespace by each instance
         * @throws IllegalArgumentException if it is null or out of that range
         */
        public void setInterval(Duration interval) {
            if (interval == null || interval.compareTo(Duration.ofMillis(50)) < 0
                    || interval.compareTo(Duration.ofMinutes(1)) > 0) {
                throw new IllegalArgumentException("latchkey.console.interval must be from 50ms to 1m but was "
                        + interval);
            }
            this.interval = interval;
        }

        /** {@return {@code latchkey.console.max-streams}: how many pages are served live at once (default 8)} */
        public int getMaxStreams() {
            return maxStreams;
        }

        /**
         * Sets {@code latchkey.console.max-streams}.
         *
         * @param maxStreams at least 1; each open page keeps one request thread
         * @throws IllegalArgumentException if it is less than 1
         */
        public void setMaxStreams(int maxStreams) {
            if (maxStreams < 1) {
                throw new IllegalArgumentException("latchkey.console.max-streams must be at least 1 but was "
                        + maxStreams);
            }
            this.maxStreams = maxStreams;
        }
    }
}
