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
     * Where to connect, e.g. {@code redis://host:6379}, {@code zookeeper://host:2181}, {@code jdbc:postgresql://…},
     * {@code mem://name}. When unset, the client is built on the application's own Lettuce, Curator or DataSource
     * bean.
     */
    private String uri;

    /** Lease of a lock taken without a lease time; the watchdog renews it every third of this. */
    private Duration watchdogTimeout = ClientOptions.DEFAULT_WATCHDOG_TIMEOUT;

    /** Bound on one remote operation before it fails with LockUnavailableException. */
    private Duration operationTimeout = ClientOptions.DEFAULT_OPERATION_TIMEOUT;

    /** Prefix of every key, path or row the client creates. */
    private String namespace = "";

    private final Jdbc jdbc = new Jdbc();
    private final LockedAnnotation locked = new LockedAnnotation();
    private final Metrics metrics = new Metrics();
    private final Health health = new Health();

    public String getUri() {
        return uri;
    }

    public void setUri(String uri) {
        this.uri = (uri == null || uri.isBlank()) ? null : uri.trim();
    }

    public Duration getWatchdogTimeout() {
        return watchdogTimeout;
    }

    public void setWatchdogTimeout(Duration watchdogTimeout) {
        ClientOptions.builder().watchdogTimeout(watchdogTimeout);
        this.watchdogTimeout = watchdogTimeout;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        ClientOptions.builder().operationTimeout(operationTimeout);
        this.operationTimeout = operationTimeout;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        String value = namespace == null ? "" : namespace;
        ClientOptions.builder().namespace(value);
        this.namespace = value;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public LockedAnnotation getLocked() {
        return locked;
    }

    public Metrics getMetrics() {
        return metrics;
    }

    public Health getHealth() {
        return health;
    }

    /** The client options these properties describe, sending events to {@code listener}. */
    ClientOptions toClientOptions(LockEventListener listener) {
        return ClientOptions.builder()
                .watchdogTimeout(watchdogTimeout)
                .operationTimeout(operationTimeout)
                .namespace(namespace)
                .eventListener(listener)
                .build();
    }

    /** {@code latchkey.jdbc.*}: used when the client is built on the application's DataSource. */
    public static class Jdbc {

        /** The lease table, optionally schema-qualified. */
        private String tableName = "latchkey_locks";

        /** Whether a missing lease table is created at startup. */
        private boolean createTable = true;

        public String getTableName() {
            return tableName;
        }

        public void setTableName(String tableName) {
            if (tableName == null || tableName.isBlank()) {
                throw new IllegalArgumentException("latchkey.jdbc.table-name must not be empty");
            }
            this.tableName = tableName.trim();
        }

        public boolean isCreateTable() {
            return createTable;
        }

        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }
    }

    /** {@code latchkey.locked.*}: the {@link Locked} annotation. */
    public static class LockedAnnotation {

        /** Whether beans with {@code @Locked} methods are proxied. */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

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

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public boolean isNameTag() {
            return nameTag;
        }

        public void setNameTag(boolean nameTag) {
            this.nameTag = nameTag;
        }
    }

    /** {@code latchkey.health.*}. */
    public static class Health {

        /** The lock whose isLocked() the health indicator reads: one cheap remote read that changes nothing. */
        private String probeName = "latchkey-health-probe";

        public String getProbeName() {
            return probeName;
        }

        public void setProbeName(String probeName) {
            this.probeName = Objects.requireNonNull(probeName, "probeName");
        }
    }
}
