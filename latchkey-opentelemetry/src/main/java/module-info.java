/** OpenTelemetry spans and metrics for any {@link io.latchkey.LockClient}, through the OpenTelemetry API. */
module io.latchkey.opentelemetry {
    requires transitive io.latchkey;
    requires transitive io.opentelemetry.api;
    requires io.opentelemetry.context;

    exports io.latchkey.opentelemetry;
}
