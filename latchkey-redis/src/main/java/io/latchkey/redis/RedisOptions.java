package io.latchkey.redis;

import java.time.Duration;
import java.util.Objects;

/**
 * Options of the Redis backend that the backend-neutral {@link io.latchkey.ClientOptions} does not have. Immutable;
 * built by {@link #builder()}, passed to {@link RedisLockClient#create(io.lettuce.core.RedisClient,
 * io.latchkey.ClientOptions, RedisOptions)}, or given as query parameters of a URI
 * ({@code redis://host:port?replicaAcks=1&replicaAckTimeout=100ms}, also for {@code redis-sentinel://}).
 *
 * <h2>Replica acknowledgement</h2>
 * Off by default ({@code replicaAcks = 0}). With {@code replicaAcks = n > 0}, every lock grant (plain, fair, read,
 * write and spin locks) is followed by {@code WAIT n timeout} on the same connection. If fewer than {@code n}
 * replicas confirm within the timeout, the grant is released again and the acquire fails with
 * {@link io.latchkey.LockUnavailableException} ("only 0 of 1 replicas acknowledged … within 100 ms"); no lock is
 * left behind. A lock that was granted is then on the master and on at least {@code n} replicas, so a failover to
 * one of them keeps it (and its latest fencing token). See {@code docs/redis-topologies.md}.
 *
 * <p>What it costs: one more round trip per grant, plus the time the replicas take to confirm (about one
 * master-replica round trip when they keep up; the whole timeout when one is down or lagging). {@code WAIT}
 * blocks the connection it runs on, and the client multiplexes all its commands (renewals, releases, other
 * threads' acquires) over one connection, so while a {@code WAIT} is pending they queue behind it: keep the
 * timeout small against the renewal interval. Attempts that find the lock busy issue no {@code WAIT}. Local
 * hand-off (passing a lock from one thread of the client to the next without freeing it) is turned off, so every
 * grant goes through the acknowledged acquire. Semaphores and latches are not covered.
 *
 * <p>What it does not guarantee: {@code WAIT} makes a write more durable, not the lock linearizable. A replica
 * that acknowledged may still not be the one promoted (with several replicas), and Sentinel may lose
 * acknowledged writes in a network partition. It narrows the window in which a failover loses a held lock from
 * "any grant not yet replicated" to those cases.
 */
public final class RedisOptions {

    private static final RedisOptions DEFAULTS = new Builder().build();

    private final int replicaAcks;
    private final Duration replicaAckTimeout;

    private RedisOptions(Builder builder) {
        this.replicaAcks = builder.replicaAcks;
        this.replicaAckTimeout = builder.replicaAckTimeout;
    }

    /** {@return the default options: no replica acknowledgement} The same instance on every call. */
    public static RedisOptions defaults() {
        return DEFAULTS;
    }

    /** {@return a new builder starting from the defaults} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return how many replicas must acknowledge each grant; 0 (the default) when off} */
    public int replicaAcks() {
        return replicaAcks;
    }

    /**
     * {@return how long a grant waits for the replicas' acknowledgement} Meaningful only when
     * {@link #replicaAcks()} &gt; 0; 100 ms by default.
     */
    public Duration replicaAckTimeout() {
        return replicaAckTimeout;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RedisOptions)) {
            return false;
        }
        RedisOptions other = (RedisOptions) o;
        return replicaAcks == other.replicaAcks && replicaAckTimeout.equals(other.replicaAckTimeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(replicaAcks, replicaAckTimeout);
    }

    @Override
    public String toString() {
        return replicaAcks == 0 ? "RedisOptions{replicaAcks=off}"
                : "RedisOptions{replicaAcks=" + replicaAcks + ", replicaAckTimeout=" + replicaAckTimeout.toMillis()
                        + "ms}";
    }

    /** Builds {@link RedisOptions}; every setter checks its argument at once. */
    public static final class Builder {

        /** The acknowledgement timeout used when only the replica count is set. */
        public static final Duration DEFAULT_REPLICA_ACK_TIMEOUT = Duration.ofMillis(100);

        private int replicaAcks;
        private Duration replicaAckTimeout = DEFAULT_REPLICA_ACK_TIMEOUT;

        private Builder() {
        }

        /**
         * Sets how many replicas must acknowledge each lock grant ({@code WAIT replicas timeout}); 0 turns it off.
         *
         * @param replicas the number of replicas, zero or positive
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder replicaAcks(int replicas) {
            if (replicas < 0) {
                throw new IllegalArgumentException(
                        String.format("replicaAcks must be zero (off) or positive but was %d", replicas));
            }
            this.replicaAcks = replicas;
            return this;
        }

        /**
         * Sets how long a grant waits for the replicas' acknowledgement (default 100 ms). Must be shorter than the
         * client's operation timeout, which bounds the {@code WAIT} command itself (checked when the client is
         * created).
         *
         * @param timeout the bound of each {@code WAIT}, from 1 ms to one day; not null
         * @return this builder
         * @throws NullPointerException if {@code timeout} is null
         * @throws IllegalArgumentException if not positive (Redis would read 0 as "wait forever") or longer than
         *         a day
         */
        public Builder replicaAckTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "replicaAckTimeout");
            if (timeout.isNegative() || timeout.isZero() || timeout.toMillis() == 0) {
                throw new IllegalArgumentException(String.format(
                        "replicaAckTimeout must be at least 1ms but was %s", timeout));
            }
            if (timeout.compareTo(Duration.ofDays(1)) > 0) {
                throw new IllegalArgumentException(
                        String.format("replicaAckTimeout must be at most 1 day but was %s", timeout));
            }
            this.replicaAckTimeout = timeout;
            return this;
        }

        /** {@return new options, as set so far} */
        public RedisOptions build() {
            return new RedisOptions(this);
        }
    }
}
