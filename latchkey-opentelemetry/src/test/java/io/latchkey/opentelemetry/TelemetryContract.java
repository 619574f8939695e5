package io.latchkey.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link LatchkeyTelemetry} reports for one backend, read back from the SDK's in-memory span exporter and
 * metric reader: an acquire that waited, one that timed out, one that failed, and a lost hold.
 */
abstract class TelemetryContract {

    private final InMemorySpanExporter spans = InMemorySpanExporter.create();
    private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
    private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
            .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
            .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
            .build();

    /** A URI of the backend under test; each call may name the same store. */
    abstract String uri();

    /** The value of {@code latchkey.backend}. */
    abstract String backend();

    /** Extra options of the backend's tests (timeouts). */
    ClientOptions.Builder options() {
        return ClientOptions.builder();
    }

    @AfterEach
    void closeSdk() {
        otel.close();
    }

    @Test
    void anAcquireThatWaitedAndOneThatTimedOutAreSpansAndMetrics() throws Exception {
        LatchkeyTelemetry telemetry = LatchkeyTelemetry.create(otel);
        ClientOptions options = options().eventListener(telemetry.eventListener()).build();
        String name = "orders-" + UUID.randomUUID();
        Span request = otel.getTracer("test").spanBuilder("request").startSpan();
        try (LockClient holder = LockClient.connect(uri(), options);
             LockClient waiter = LockClient.connect(uri(), options)) {
            LockLease first = holder.lock(name).acquire();
            try (Scope ignored = request.makeCurrent()) {
                assertThat(waiter.lock(name).tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
            }
            CompletableFuture<Void> release = CompletableFuture.runAsync(() -> {
                sleep(300);
                first.release();
            });
            LockLease second;
            try (Scope ignored = request.makeCurrent()) {
                second = waiter.lock(name).acquire();
            }
            release.get(5, TimeUnit.SECONDS);
            second.release();
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());

            List<SpanData> acquires = awaitSpans(LatchkeyTelemetry.ACQUIRE_SPAN, 3);
            SpanData granted = acquires.get(0);
            SpanData timedOut = acquires.get(1);
            SpanData waited = acquires.get(2);
            for (SpanData span : acquires) {
                assertThat(span.getAttributes().get(TelemetryListener.LOCK_NAME_KEY)).isEqualTo(name);
                assertThat(span.getAttributes().get(TelemetryListener.BACKEND_KEY)).isEqualTo(backend());
            }
            assertThat(granted.getAttributes().get(TelemetryListener.OUTCOME_KEY)).isEqualTo("acquired");
            assertThat(granted.getAttributes().get(TelemetryListener.FENCING_TOKEN_KEY))
                    .isEqualTo(first.fencingToken());
            assertThat(granted.getParentSpanContext().isValid()).as("no span was current").isFalse();

            assertThat(timedOut.getAttributes().get(TelemetryListener.OUTCOME_KEY)).isEqualTo("timed_out");
            assertThat(timedOut.getAttributes().get(TelemetryListener.FENCING_TOKEN_KEY)).isNull();
            assertThat(timedOut.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
            assertThat(timedOut.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
            assertThat(durationOf(timedOut)).isGreaterThanOrEqualTo(Duration.ofMillis(90));

            assertThat(waited.getAttributes().get(TelemetryListener.OUTCOME_KEY)).isEqualTo("acquired");
            assertThat(waited.getAttributes().get(TelemetryListener.FENCING_TOKEN_KEY))
                    .isEqualTo(second.fencingToken());
            assertThat(waited.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
            assertThat(waited.getTraceId()).isEqualTo(request.getSpanContext().getTraceId());
            assertThat(durationOf(waited)).as("the span starts when the wait starts")
                    .isGreaterThanOrEqualTo(Duration.ofMillis(150));
        } finally {
            request.end();
        }

        Attributes acquired = Attributes.of(TelemetryListener.BACKEND_KEY, backend(),
                TelemetryListener.OUTCOME_KEY, "acquired");
        Attributes timedOut = Attributes.of(TelemetryListener.BACKEND_KEY, backend(),
                TelemetryListener.OUTCOME_KEY, "timed_out");
        List<MetricData> collected = List.copyOf(metrics.collectAllMetrics());
        HistogramPointData waitAcquired = histogram(collected, LatchkeyTelemetry.WAIT_METRIC, acquired);
        assertThat(waitAcquired.getCount()).isEqualTo(2);
        assertThat(waitAcquired.getMax()).isGreaterThanOrEqualTo(0.15);
        assertThat(histogram(collected, LatchkeyTelemetry.WAIT_METRIC, timedOut).getCount()).isEqualTo(1);
        HistogramPointData held = histogram(collected, LatchkeyTelemetry.HELD_METRIC,
                Attributes.of(TelemetryListener.BACKEND_KEY, backend()));
        assertThat(held.getCount()).isEqualTo(2);
        assertThat(held.getMax()).isGreaterThanOrEqualTo(0.15);
        MetricData wait = metric(collected, LatchkeyTelemetry.WAIT_METRIC);
        assertThat(wait.getUnit()).isEqualTo("s");
        assertThat(wait.getHistogramData().getPoints()).allSatisfy(p -> assertThat(p.getAttributes().asMap().keySet())
                .extracting(AttributeKey::getKey).doesNotContain(LatchkeyTelemetry.LOCK_NAME));
    }

    @Test
    void aFailedAcquireIsAnErrorSpanAndALostHoldAnErrorEvent() throws Exception {
        LatchkeyTelemetry telemetry = LatchkeyTelemetry.create(otel);
        ClientOptions options = options().eventListener(telemetry.eventListener()).build();
        String name = "jobs-" + UUID.randomUUID();
        try (LockClient holder = LockClient.connect(uri(), options)) {
            LockLease held = holder.lock(name).acquire();
            LockClient waiter = LockClient.connect(uri(), options);
            CompletableFuture<LockLease> pending = waiter.lock(name).acquireAsync();
            Thread.sleep(100);
            waiter.close(); // the pending acquire fails: the client closed
            assertThat(pending).failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class);

            SpanData failed = awaitSpans(LatchkeyTelemetry.ACQUIRE_SPAN, 2).get(1);
            assertThat(failed.getAttributes().get(TelemetryListener.OUTCOME_KEY)).isEqualTo("failed");
            assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(failed.getAttributes().get(TelemetryListener.ERROR_TYPE_KEY)).isNotBlank();
            assertThat(failed.getEvents()).extracting(EventData::getName).contains("exception");

            held.release();
            LockLease shortLease = holder.lock(name).acquire(Duration.ofMillis(200)); // a fixed lease, not renewed
            SpanData lost = awaitSpans(LatchkeyTelemetry.LOST_SPAN, 1).get(0);
            assertThat(shortLease.isValid()).isFalse();
            assertThat(lost.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
            assertThat(lost.getAttributes().get(TelemetryListener.LOCK_NAME_KEY)).isEqualTo(name);
            assertThat(lost.getAttributes().get(TelemetryListener.BACKEND_KEY)).isEqualTo(backend());
            EventData event = lost.getEvents().get(0);
            assertThat(event.getName()).isEqualTo(LatchkeyTelemetry.LOST_EVENT);
            assertThat(event.getAttributes().get(TelemetryListener.LOST_REASON_KEY)).contains("200 ms");
        }
        List<MetricData> collected = List.copyOf(metrics.collectAllMetrics());
        LongPointData lost = metric(collected, LatchkeyTelemetry.LOST_METRIC).getLongSumData().getPoints().stream()
                .filter(p -> p.getAttributes().equals(Attributes.of(TelemetryListener.BACKEND_KEY, backend())))
                .findFirst().orElseThrow();
        assertThat(lost.getValue()).isEqualTo(1);
        assertThat(histogram(collected, LatchkeyTelemetry.WAIT_METRIC, Attributes.of(TelemetryListener.BACKEND_KEY,
                backend(), TelemetryListener.OUTCOME_KEY, "failed")).getCount()).isEqualTo(1);
    }

    private List<SpanData> awaitSpans(String spanName, int count) {
        await().atMost(Duration.ofSeconds(10)).until(() -> named(spanName).size() >= count);
        return named(spanName);
    }

    private List<SpanData> named(String spanName) {
        return spans.getFinishedSpanItems().stream().filter(s -> s.getName().equals(spanName))
                .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos)).collect(Collectors.toList());
    }

    private static Duration durationOf(SpanData span) {
        return Duration.ofNanos(span.getEndEpochNanos() - span.getStartEpochNanos());
    }

    static MetricData metric(List<MetricData> collected, String name) {
        Optional<MetricData> found = collected.stream().filter(m -> m.getName().equals(name)).findFirst();
        assertThat(found).as("metric %s in %s", name, collected).isPresent();
        return found.get();
    }

    static HistogramPointData histogram(List<MetricData> collected, String name, Attributes attributes) {
        return metric(collected, name).getHistogramData().getPoints().stream()
                .filter(p -> p.getAttributes().equals(attributes)).findFirst()
                .orElseThrow(() -> new AssertionError("no point " + attributes + " in " + name + ": " + collected));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
