package io.latchkey.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockEventListener;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TelemetryOptionsTest {

    @Test
    void lockNamesCanBeHashedOrOmitted() throws InterruptedException {
        assertThat(spanOf(LatchkeyTelemetry.LockNames.RECORD, "user:42").getAttributes()
                .get(TelemetryListener.LOCK_NAME_KEY)).isEqualTo("user:42");
        String hashed = spanOf(LatchkeyTelemetry.LockNames.HASH, "user:42").getAttributes()
                .get(TelemetryListener.LOCK_NAME_KEY);
        assertThat(hashed).matches("sha256:[0-9a-f]{16}").isEqualTo(TelemetryListener.hash("user:42"))
                .isNotEqualTo(TelemetryListener.hash("user:43"));
        // the first 8 bytes of SHA-256("abc"), as sha256sum prints them
        assertThat(TelemetryListener.hash("abc")).isEqualTo("sha256:ba7816bf8f01cfea");
        SpanData omitted = spanOf(LatchkeyTelemetry.LockNames.OMIT, "user:42");
        assertThat(omitted.getAttributes().get(TelemetryListener.LOCK_NAME_KEY)).isNull();
        assertThat(omitted.getAttributes().get(TelemetryListener.BACKEND_KEY)).isEqualTo("mem");
    }

    @Test
    void oneListenerServesEveryBackendAndAdvisoryLocksReportJdbc() {
        LockEventListener listener = LatchkeyTelemetry.create(OpenTelemetry.noop()).eventListener();
        assertThat(LatchkeyTelemetry.create(OpenTelemetry.noop()).eventListener()).isNotSameAs(listener);
        assertThat(listener.forBackend("redis").toString()).contains("redis");
        assertThat(listener.forBackend("jdbc-advisory").toString()).contains("(jdbc)");
        LockEventListener redis = listener.forBackend("redis");
        assertThat(redis.forBackend("redis")).isSameAs(redis);
        assertThatThrownBy(() -> LatchkeyTelemetry.create(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> LatchkeyTelemetry.builder(OpenTelemetry.noop()).lockNames(null))
                .isInstanceOf(NullPointerException.class);
    }

    private static SpanData spanOf(LatchkeyTelemetry.LockNames mode, String lockName) throws InterruptedException {
        InMemorySpanExporter spans = InMemorySpanExporter.create();
        try (OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(spans)).build()).build()) {
            LatchkeyTelemetry telemetry = LatchkeyTelemetry.builder(otel).lockNames(mode).build();
            try (LockClient client = LockClient.connect("mem://names-" + UUID.randomUUID(),
                    ClientOptions.builder().eventListener(telemetry.eventListener()).build())) {
                client.lock(lockName).acquire().release();
            }
            List<SpanData> finished = spans.getFinishedSpanItems();
            assertThat(finished).hasSize(1);
            return finished.get(0);
        }
    }
}
