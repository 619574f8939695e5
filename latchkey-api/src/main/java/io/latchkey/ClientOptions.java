package io.latchkey;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of a {@link LockClient}, built with {@link #builder()}.
 *
 * <pre>{@code
 * ClientOptions options = ClientOptions.builder()
 *     .watchdogTimeout(Duration.ofSeconds(30))
 *     .operationTimeout(Duration.ofSeconds(5))
 *     .namespace("orders:")
 *     .build();
 * }</pre>
 *
 * <p>Every setter checks its argument at once and throws {@link IllegalArgumentException} with the reason.
 */
public final class ClientOptions {

    /** Default lease of a watchdog-renewed lock; renewal runs every third of it. */
    public static final Duration DEFAULT_WATCHDOG_TIMEOUT = Duration.ofSeconds(30);
    /** Default bound on one remote operation before {@link LockUnavailableException}. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(5);
    /**
     * The longest lease any primitive accepts, on every backend: 36,500 days (about 100 years). Leases
     * ({@code leaseTime} of locks and permits, {@link #watchdogTimeout()}) and {@link #operationTimeout()} above it
     * are refused with {@link IllegalArgumentException} before anything is sent, because a lease is sent to the
     * server, which adds it to its own clock in milliseconds (Redis {@code PEXPIRE}, SQL time arithmetic, etcd lease
     * TTLs capped at 9·10⁹ s): this bound fits all of them. Waits are never refused for being long: a wait too long
     * to represent means forever.
     */
    public static final Duration MAX_LEASE_TIME = Duration.ofDays(36_500);

    private static final ClientOptions DEFAULTS = builder().build();

    private final Duration watchdogTimeout;
    private final Duration operationTimeout;
    private final String namespace;
    private final LockEventListener eventListener;
    private final String clientName;
    private final boolean releaseOnClose;
    private final boolean closeOnShutdown;

    private ClientOptions(Builder b) {
        this.watchdogTimeout = b.watchdogTimeout;
        this.operationTimeout = b.operationTimeout;
        this.namespace = b.namespace;
        this.eventListener = b.eventListener;
        this.clientName = b.clientName;
        this.releaseOnClose = b.releaseOnClose;
        this.closeOnShutdown = b.closeOnShutdown;
    }

    /** {@return the default options} Every setting has its default; the same instance on every call. */
    public static ClientOptions defaults() {
        return DEFAULTS;
    }

    /** {@return a new builder with every setting at its default} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a new builder that starts from these options} These options are not changed by it. */
    public Builder toBuilder() {
        return new Builder()
                .watchdogTimeout(watchdogTimeout)
                .operationTimeout(operationTimeout)
                .namespace(namespace)
                .eventListener(eventListener)
                .clientNameOrDefault(clientName)
                .releaseOnClose(releaseOnClose)
                .closeOnShutdown(closeOnShutdown);
    }

    /**
     * {@return the lease a lock acquired without a lease time gets} The lock keeps it while the watchdog renews it
     * every {@code watchdogTimeout / 3}. If the client dies, the lock is free again at most this long after the
     * last renewal. At least 30 ms; 30 s by default.
     */
    public Duration watchdogTimeout() {
        return watchdogTimeout;
    }

    /** {@return the watchdog's renewal period: a third of {@link #watchdogTimeout()}} */
    public Duration renewalInterval() {
        return watchdogTimeout.dividedBy(3);
    }

    /**
     * {@return how long one remote operation may take before it fails with {@link LockUnavailableException}}
     * Positive; 5 s by default.
     */
    public Duration operationTimeout() {
        return operationTimeout;
    }

    /**
     * {@return the prefix of every key, path or row this client creates} It keeps applications that share a
     * server from seeing each other's locks. Never null; empty by default (Redis keys then equal lock names, as
     * Redisson's do); at most 128 characters.
     */
    public String namespace() {
        return namespace;
    }

    /** {@return where lock events go} Never null; {@link LockEventListener#NONE} by default. */
    public LockEventListener eventListener() {
        return eventListener;
    }

    /**
     * {@return the name this client records with each hold, for operators} {@link DistributedLock#holder()},
     * {@code latchkey inspect} and the message of a timed-out wait show it. Not an identity ({@link
     * LockClient#clientId()} is): several clients may share a name. {@code host:pid} of this JVM by default (the host
     * name as {@link java.net.InetAddress#getLocalHost()} tells it, looked up once per JVM, {@code localhost} if it
     * cannot); 1 to 128 characters.
     */
    public String clientName() {
        return clientName != null ? clientName : DefaultClientName.VALUE;
    }

    /**
     * {@return whether {@link LockClient#close()} releases the holds the client still has} If not, they are
     * marked lost and expire with their lease on the server, as after a crash. {@code true} by default.
     */
    public boolean releaseOnClose() {
        return releaseOnClose;
    }

    /**
     * {@return whether a normal JVM exit (end of {@code main}, {@code System.exit}, SIGTERM) closes the client} All
     * clients share one shutdown hook thread, {@code latchkey-shutdown}. {@code true} by default.
     */
    public boolean closeOnShutdown() {
        return closeOnShutdown;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof ClientOptions)) {
            return false;
        }
        ClientOptions that = (ClientOptions) o;
        return watchdogTimeout.equals(that.watchdogTimeout)
                && operationTimeout.equals(that.operationTimeout)
                && namespace.equals(that.namespace)
                && eventListener.equals(that.eventListener)
                && clientName().equals(that.clientName())
                && releaseOnClose == that.releaseOnClose
                && closeOnShutdown == that.closeOnShutdown;
    }

    @Override
    public int hashCode() {
        return Objects.hash(watchdogTimeout, operationTimeout, namespace, eventListener, clientName(), releaseOnClose,
                closeOnShutdown);
    }

    @Override
    public String toString() {
        return "ClientOptions{watchdogTimeout=" + watchdogTimeout + ", operationTimeout=" + operationTimeout
                + ", namespace='" + namespace + "', clientName='" + clientName() + "', releaseOnClose=" + releaseOnClose
                + ", closeOnShutdown=" + closeOnShutdown + "}";
    }

    /** Builds {@link ClientOptions}; not thread-safe, reusable. */
    public static final class Builder {
        private Duration watchdogTimeout = DEFAULT_WATCHDOG_TIMEOUT;
        private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
        private String namespace = "";
        private LockEventListener eventListener = LockEventListener.NONE;
        /** {@code null}: the default, {@code host:pid}, looked up only when asked. */
        private String clientName;
        private boolean releaseOnClose = true;
        private boolean closeOnShutdown = true;

        private Builder() {
        }

        /**
         * Sets the watchdog lease (default 30 s).
         *
         * @param watchdogTimeout the lease of watchdog-renewed locks; not null
         * @return this builder
         * @throws NullPointerException if {@code watchdogTimeout} is null
         * @throws IllegalArgumentException if it is not at least 30 ms (renewals run every third of it) or longer than
         *         {@link #MAX_LEASE_TIME}
         */
        public Builder watchdogTimeout(Duration watchdogTimeout) {
            Objects.requireNonNull(watchdogTimeout, "watchdogTimeout");
            if (watchdogTimeout.compareTo(Duration.ofMillis(30)) < 0) {
                throw new IllegalArgumentException(
                        String.format("watchdogTimeout must be at least 30ms but was %s", watchdogTimeout));
            }
            checkAtMostMaxLease("watchdogTimeout", watchdogTimeout);
            this.watchdogTimeout = watchdogTimeout;
            return this;
        }

        /**
         * Sets the bound on one remote operation (default 5 s).
         *
         * @param operationTimeout how long one remote operation may take; not null
         * @return this builder
         * @throws NullPointerException if {@code operationTimeout} is null
         * @throws IllegalArgumentException if it is not positive or longer than {@link #MAX_LEASE_TIME} (backends pass
         *         it to servers and drivers as their own timeouts)
         */
        public Builder operationTimeout(Duration operationTimeout) {
            Objects.requireNonNull(operationTimeout, "operationTimeout");
            if (operationTimeout.isNegative() || operationTimeout.isZero()) {
                throw new IllegalArgumentException(
                        String.format("operationTimeout must be positive but was %s", operationTimeout));
            }
            checkAtMostMaxLease("operationTimeout", operationTimeout);
            this.operationTimeout = operationTimeout;
            return this;
        }

        /**
         * Sets the prefix of every key, path or row (default empty).
         *
         * @param namespace the prefix, possibly empty; not null
         * @return this builder
         * @throws NullPointerException if {@code namespace} is null
         * @throws IllegalArgumentException if it is longer than 128 characters, has control characters or is not
         *         well-formed UTF-16 (a lone surrogate)
         */
        public Builder namespace(String namespace) {
            Objects.requireNonNull(namespace, "namespace");
            if (namespace.length() > 128) {
                throw new IllegalArgumentException(
                        String.format("namespace must be at most 128 characters but was %d", namespace.length()));
            }
            for (int i = 0; i < namespace.length(); i++) {
                if (Character.isISOControl(namespace.charAt(i))) {
                    throw new IllegalArgumentException(String.format(
                            "namespace must not contain control characters but had U+%04X at index %d",
                            (int) namespace.charAt(i), i));
                }
                if (Character.isSurrogate(namespace.charAt(i))) {
                    if (Character.isHighSurrogate(namespace.charAt(i)) && i + 1 < namespace.length()
                            && Character.isLowSurrogate(namespace.charAt(i + 1))) {
                        i++;
                    } else {
                        throw new IllegalArgumentException(String.format(
                                "namespace must be well-formed UTF-16 but had a lone surrogate U+%04X at index %d",
                                (int) namespace.charAt(i), i));
                    }
                }
            }
            this.namespace = namespace;
            return this;
        }

        /**
         * Sets where lock events go (default: nowhere).
         *
         * @param eventListener the listener, called on the threads where the events happen; not null (use
         *        {@link LockEventListener#NONE} for none)
         * @return this builder
         * @throws NullPointerException if {@code eventListener} is null
         */
        public Builder eventListener(LockEventListener eventListener) {
            this.eventListener = Objects.requireNonNull(eventListener, "eventListener");
            return this;
        }

        /**
         * Sets the name this client records with each hold (default {@code host:pid}), shown to operators by
         * {@link DistributedLock#holder()}, {@code latchkey inspect} and timed-out waits.
         *
         * @param clientName the name, such as {@code "billing-7"}; not null
         * @return this builder
         * @throws NullPointerException if {@code clientName} is null
         * @throws IllegalArgumentException if it is empty, longer than 128 characters, has control characters or is
         *         not well-formed UTF-16 (a lone surrogate)
         */
        public Builder clientName(String clientName) {
            this.clientName = DefaultClientName.check(clientName);
            return this;
        }

        private Builder clientNameOrDefault(String clientName) {
            this.clientName = clientName;
            return this;
        }

        /**
         * Sets whether {@link LockClient#close()} releases the holds the client still has (default {@code true}):
         * every holder is told {@code onLost} first, then all holds are released at once, within the operation
         * timeout in total. With {@code false} they are only marked lost and expire with their lease, as after a
         * crash.
         *
         * @param releaseOnClose whether close releases held locks, leases, leaderships and watchdog permits
         * @return this builder
         */
        public Builder releaseOnClose(boolean releaseOnClose) {
            this.releaseOnClose = releaseOnClose;
            return this;
        }

        /**
         * Sets whether a normal JVM exit closes the client (default {@code true}), through one shutdown hook shared
         * by every client. Turn it off when a framework closes the client itself in its own order (the Spring Boot
         * starter does): JVM shutdown hooks run in parallel, so the hook could close the client while the
         * framework still lets locked work finish.
         *
         * @param closeOnShutdown whether the JVM's shutdown closes the client
         * @return this builder
         */
        public Builder closeOnShutdown(boolean closeOnShutdown) {
            this.closeOnShutdown = closeOnShutdown;
            return this;
        }

        /** {@return new options, as set so far} The builder can go on being used. */
        public ClientOptions build() {
            return new ClientOptions(this);
        }

        private static void checkAtMostMaxLease(String what, Duration d) {
            if (d.compareTo(MAX_LEASE_TIME) > 0) {
                throw new IllegalArgumentException(String.format(
                        "%s must be at most %s (ClientOptions.MAX_LEASE_TIME, 36500 days) but was %s", what,
                        MAX_LEASE_TIME, d));
            }
        }
    }
}
