package io.latchkey.opentelemetry;

import io.latchkey.ClientOptions;
import io.latchkey.LockEventListener;
import io.opentelemetry.api.OpenTelemetry;
import java.util.Objects;

/**
 * OpenTelemetry spans and metrics for Latchkey's locks. Pass {@link #eventListener()} to
 * {@link ClientOptions.Builder#eventListener(LockEventListener)}; one listener serves any number of clients, of any
 * backend:
 *
 * <pre>{@code
 * LatchkeyTelemetry telemetry = LatchkeyTelemetry.create(openTelemetry);
 * ClientOptions options = ClientOptions.builder().eventListener(telemetry.eventListener()).build();
 * try (LockClient client = LockClient.connect("redis://localhost:6379", options)) { ... }
 * }</pre>
 *
 * <p><b>Spans.</b> Every acquire of a lock that asks the backend (plain, fair, read and write locks, spin locks;
 * {@code lock}, {@code tryLock}, {@code acquire} and their asynchronous forms; not a re-entry of the caller's own
 * hold) is a span {@value #ACQUIRE_SPAN}, a child of the span current on the thread that called it. It starts when
 * the wait starts and ends when the lock was granted or the acquire gave up, with the attributes
 * {@value #LOCK_NAME} (see {@link LockNames}), {@value #BACKEND} ({@code redis}, {@code zookeeper}, {@code etcd},
 * {@code jdbc}, {@code file}, {@code mem}), {@value #OUTCOME} ({@code acquired}, {@code timed_out},
 * {@code failed}) and, when granted, {@value #FENCING_TOKEN}. A failed acquire (the backend failed or did not answer
 * in time, the client closed, the caller was interrupted or cancelled) has the status {@code ERROR}, the exception
 * recorded and {@code error.type}; a timed-out one is not an error.
 *
 * <p><b>Lost holds.</b> A hold lost before its release (renewal refused or failed, lease or session expired, forced
 * unlock seen) is a span {@value #LOST_SPAN} of its own, status {@code ERROR}, with an event
 * {@value #LOST_EVENT} that carries the reason in {@value #LOST_REASON}: it is seen on the watchdog's thread, where
 * no application span is current.
 *
 * <p><b>Metrics</b> (attribute {@value #BACKEND}; never the lock name):
 * <ul>
 *   <li>{@value #WAIT_METRIC} (histogram, seconds): how long each acquire waited, also with {@value #OUTCOME};</li>
 *   <li>{@value #HELD_METRIC} (histogram, seconds): how long each hold lasted, acquire to release;</li>
 *   <li>{@value #LOST_METRIC} (counter): holds lost before their release.</li>
 * </ul>
 *
 * <p>The listener does no I/O and takes no lock of its own: it hands spans and measurements to the OpenTelemetry
 * API, on the thread that reports the event. It starts no thread.
 */
public final class LatchkeyTelemetry {

    /** The span of one acquire. */
    public static final String ACQUIRE_SPAN = "latchkey.acquire";
    /** The span of one lost hold. */
    public static final String LOST_SPAN = "latchkey.lost";
    /** The event of a lost hold, on its span. */
    public static final String LOST_EVENT = "latchkey.lock.lost";
    /** The lock's name (or its hash), per {@link LockNames}. */
    public static final String LOCK_NAME = "latchkey.lock.name";
    /** The backend: {@code redis}, {@code zookeeper}, {@code etcd}, {@code jdbc}, {@code file} or {@code mem}. */
    public static final String BACKEND = "latchkey.backend";
    /** How an acquire ended: {@code acquired}, {@code timed_out} or {@code failed}. */
    public static final String OUTCOME = "latchkey.outcome";
    /** The fencing token of a granted acquire. */
    public static final String FENCING_TOKEN = "latchkey.fencing_token";
    /** Why a hold was lost. */
    public static final String LOST_REASON = "latchkey.lost.reason";
    /** The wait-time histogram, in seconds. */
    public static final String WAIT_METRIC = "latchkey.lock.wait";
    /** The hold-time histogram, in seconds. */
    public static final String HELD_METRIC = "latchkey.lock.held";
    /** The counter of lost holds. */
    public static final String LOST_METRIC = "latchkey.lock.lost";

    /**
     * What the {@value #LOCK_NAME} attribute of a span holds. Lock names are application data (an order id, a user
     * id): they may be sensitive, and they are many. Metrics never carry them.
     */
    public enum LockNames {
        /** The lock's name as it is (the default). */
        RECORD,
        /**
         * {@code sha256:} and the first 16 hex digits of the SHA-256 of the name's UTF-8 bytes: the same name gives
         * the same value in every process, the name itself is not shown.
         */
        HASH,
        /** No {@value LatchkeyTelemetry#LOCK_NAME} attribute. */
        OMIT
    }

    private final TelemetryListener listener;

    private LatchkeyTelemetry(Builder builder) {
        this.listener = TelemetryListener.create(builder.openTelemetry, builder.lockNames);
    }

    /**
     * Telemetry through {@code openTelemetry} (such as {@code GlobalOpenTelemetry.get()} or the SDK the application
     * built), with the default options.
     *
     * @throws NullPointerException if {@code openTelemetry} is null
     */
    public static LatchkeyTelemetry create(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    /**
     * A builder for telemetry through {@code openTelemetry}, to set options.
     *
     * @throws NullPointerException if {@code openTelemetry} is null
     */
    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(openTelemetry);
    }

    /**
     * The listener to pass to {@link ClientOptions.Builder#eventListener(LockEventListener)}; the same instance on
     * every call. It serves any number of clients at once, each client's events tagged with its backend.
     */
    public LockEventListener eventListener() {
        return listener;
    }

    /** Options of a {@link LatchkeyTelemetry}. */
    public static final class Builder {
        private final OpenTelemetry openTelemetry;
        private LockNames lockNames = LockNames.RECORD;

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
        }

        /**
         * What spans say of the lock's name: as it is ({@link LockNames#RECORD}, the default), hashed or omitted.
         *
         * @throws NullPointerException if {@code lockNames} is null
         */
        public Builder lockNames(LockNames lockNames) {
            this.lockNames = Objects.requireNonNull(lockNames, "lockNames");
            return this;
        }

        /** The telemetry; its listener is ready to use. */
        public LatchkeyTelemetry build() {
            return new LatchkeyTelemetry(this);
        }
    }
}
