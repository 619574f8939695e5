/**
 * OpenTelemetry for Latchkey: {@link io.latchkey.opentelemetry.LatchkeyTelemetry} makes the
 * {@link io.latchkey.LockEventListener} that turns a client's lock events into spans and metrics, through the
 * OpenTelemetry API only (the application brings the SDK or the Java agent).
 */
package io.latchkey.opentelemetry;
