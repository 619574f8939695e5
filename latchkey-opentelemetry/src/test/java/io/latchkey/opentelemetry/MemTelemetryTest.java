package io.latchkey.opentelemetry;

import java.util.UUID;

/** {@link TelemetryContract} on {@code mem://}. */
class MemTelemetryTest extends TelemetryContract {

    private final String uri = "mem://otel-" + UUID.randomUUID();

    @Override
    String uri() {
        return uri;
    }

    @Override
    String backend() {
        return "mem";
    }
}
