package io.latchkey.opentelemetry;

import static io.latchkey.opentelemetry.LatchkeyTelemetry.BACKEND;
import static io.latchkey.opentelemetry.LatchkeyTelemetry.FENCING_TOKEN;
import static io.latchkey.opentelemetry.LatchkeyTelemetry.LOCK_NAME;
import static io.latchkey.opentelemetry.LatchkeyTelemetry.LOST_REASON;
import static io.latchkey.opentelemetry.LatchkeyTelemetry.OUTCOME;

import io.latchkey.LockEventListener;
import io.latchkey.opentelemetry.LatchkeyTelemetry.LockNames;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongCounter;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.metrics.MeterBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerBuilder;
import io.opentelemetry.context.Context;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.List;

/**
 * The {@link LockEventListener} of a {@link LatchkeyTelemetry}: one per backend a client reported
 * ({@link #forBackend}), all sharing one tracer and one set of instruments. Stateless per event: an acquire's span
 * travels in the {@link AcquireSpan} the engine hands back at its end.
 */
final class TelemetryListener implements LockEventListener {

    static final AttributeKey<String> LOCK_NAME_KEY = AttributeKey.stringKey(LOCK_NAME);
    static final AttributeKey<String> BACKEND_KEY = AttributeKey.stringKey(BACKEND);
    static final AttributeKey<String> OUTCOME_KEY = AttributeKey.stringKey(OUTCOME);
    static final AttributeKey<Long> FENCING_TOKEN_KEY = AttributeKey.longKey(FENCING_TOKEN);
    static final AttributeKey<String> LOST_REASON_KEY = AttributeKey.stringKey(LOST_REASON);
    static final AttributeKey<String> ERROR_TYPE_KEY = AttributeKey.stringKey("error.type");

    private static final String SCOPE = "io.latchkey.opentelemetry";
    /** From a millisecond to a minute: lock waits and holds, in seconds. */
    private static final List<Double> BUCKETS = List.of(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0,
            2.5, 5.0, 10.0, 30.0, 60.0);

    /** What every backend's listener shares. */
    private static final class Instruments {
        final Tracer tracer;
        final DoubleHistogram wait;
        final DoubleHistogram held;
        final LongCounter lost;
        final LockNames lockNames;

        Instruments(OpenTelemetry otel, LockNames lockNames) {
            String version = LatchkeyTelemetry.class.getPackage().getImplementationVersion();
            TracerBuilder tracers = otel.getTracerProvider().tracerBuilder(SCOPE);
            MeterBuilder meters = otel.getMeterProvider().meterBuilder(SCOPE);
            if (version != null) {
                tracers.setInstrumentationVersion(version);
                meters.setInstrumentationVersion(version);
            }
            this.tracer = tracers.build();
            Meter meter = meters.build();
            this.wait = meter.histogramBuilder(LatchkeyTelemetry.WAIT_METRIC).setUnit("s")
                    .setDescription("How long an acquire of a lock waited, until granted or given up")
                    .setExplicitBucketBoundariesAdvice(BUCKETS).build();
            this.held = meter.histogramBuilder(LatchkeyTelemetry.HELD_METRIC).setUnit("s")
                    .setDescription("How long a lock was held, from acquire to release")
                    .setExplicitBucketBoundariesAdvice(BUCKETS).build();
            this.lost = meter.counterBuilder(LatchkeyTelemetry.LOST_METRIC).setUnit("{hold}")
                    .setDescription("Held locks lost before their release").build();
            this.lockNames = lockNames;
        }
    }

    private final Instruments instruments;
    /** {@code null} until a client reported its backend. */
    private final String backend;
    private final Attributes backendAttributes;
    private final Attributes acquiredAttributes;
    private final Attributes timedOutAttributes;
    private final Attributes failedAttributes;

    private TelemetryListener(Instruments instruments, String backend) {
        this.instruments = instruments;
        this.backend = backend;
        this.backendAttributes = backend == null ? Attributes.empty() : Attributes.of(BACKEND_KEY, backend);
        this.acquiredAttributes = withOutcome("acquired");
        this.timedOutAttributes = withOutcome("timed_out");
        this.failedAttributes = withOutcome("failed");
    }

    static TelemetryListener create(OpenTelemetry otel, LockNames lockNames) {
        return new TelemetryListener(new Instruments(otel, lockNames), null);
    }

    private Attributes withOutcome(String outcome) {
        return backendAttributes.toBuilder().put(OUTCOME_KEY, outcome).build();
    }

    /** {@code jdbc-advisory} is reported as {@code jdbc}: the attribute names the store, not the recipe. */
    static String backendAttribute(String backend) {
        if (backend == null || backend.isEmpty()) {
            return null;
        }
        return backend.startsWith("jdbc") ? "jdbc" : backend;
    }

    @Override
    public LockEventListener forBackend(String backend) {
        String value = backendAttribute(backend);
        return value == null || value.equals(this.backend) ? this : new TelemetryListener(instruments, value);
    }

    @Override
    public AcquireWait waitStarted(String lockName) {
        SpanBuilder builder = instruments.tracer.spanBuilder(LatchkeyTelemetry.ACQUIRE_SPAN)
                .setParent(Context.current())
                .setSpanKind(SpanKind.INTERNAL);
        if (backend != null) {
            builder.setAttribute(BACKEND_KEY, backend);
        }
        String name = lockNameAttribute(lockName);
        if (name != null) {
            builder.setAttribute(LOCK_NAME_KEY, name);
        }
        return new AcquireSpan(builder.startSpan());
    }

    @Override
    public void released(String lockName, Duration held) {
        instruments.held.record(seconds(held), backendAttributes);
    }

    @Override
    public void lost(String lockName, String reason) {
        instruments.lost.add(1, backendAttributes);
        String why = reason == null ? "unknown" : reason;
        SpanBuilder builder = instruments.tracer.spanBuilder(LatchkeyTelemetry.LOST_SPAN)
                .setNoParent()
                .setSpanKind(SpanKind.INTERNAL)
                .setAttribute(LOST_REASON_KEY, why);
        if (backend != null) {
            builder.setAttribute(BACKEND_KEY, backend);
        }
        String name = lockNameAttribute(lockName);
        if (name != null) {
            builder.setAttribute(LOCK_NAME_KEY, name);
        }
        Span span = builder.startSpan();
        span.addEvent(LatchkeyTelemetry.LOST_EVENT, Attributes.of(LOST_REASON_KEY, why));
        span.setStatus(StatusCode.ERROR, "lock lost: " + why);
        span.end();
    }

    /** The span attribute for {@code lockName}, or {@code null} for none. */
    String lockNameAttribute(String lockName) {
        switch (instruments.lockNames) {
            case OMIT:
                return null;
            case HASH:
                return hash(lockName);
            default:
                return lockName;
        }
    }

    static String hash(String lockName) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(lockName.getBytes(StandardCharsets.UTF_8));
            StringBuilder out = new StringBuilder("sha256:");
            for (int i = 0; i < 8; i++) {
                out.append(Character.forDigit((digest[i] >> 4) & 0xf, 16))
                        .append(Character.forDigit(digest[i] & 0xf, 16));
            }
            return out.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM; every Java SE platform has it", e);
        }
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    /** One acquire's span, ended once with its outcome; its wait is recorded at the same time. */
    private final class AcquireSpan implements AcquireWait {
        private final Span span;

        AcquireSpan(Span span) {
            this.span = span;
        }

        @Override
        public void acquired(long fencingToken, Duration waited) {
            instruments.wait.record(seconds(waited), acquiredAttributes);
            span.setAttribute(OUTCOME_KEY, "acquired");
            span.setAttribute(FENCING_TOKEN_KEY, fencingToken);
            span.end();
        }

        @Override
        public void timedOut(Duration waited) {
            instruments.wait.record(seconds(waited), timedOutAttributes);
            span.setAttribute(OUTCOME_KEY, "timed_out");
            span.end();
        }

        @Override
        public void failed(Throwable cause, Duration waited) {
            instruments.wait.record(seconds(waited), failedAttributes);
            span.setAttribute(OUTCOME_KEY, "failed");
            span.setAttribute(ERROR_TYPE_KEY, cause.getClass().getName());
            span.recordException(cause);
            span.setStatus(StatusCode.ERROR, String.valueOf(cause.getMessage()));
            span.end();
        }
    }

    @Override
    public String toString() {
        return "LatchkeyTelemetry listener" + (backend == null ? "" : " (" + backend + ")");
    }
}
