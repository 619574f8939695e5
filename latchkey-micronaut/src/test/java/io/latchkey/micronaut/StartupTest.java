package io.latchkey.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import io.micronaut.context.ApplicationContext;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What fails the application's start, naming what to fix. */
class StartupTest {

    @Test
    void outsideTestAndDevANonexistentUriFailsTheStartNamingTheProperty() {
        assertThatThrownBy(() -> ApplicationContext.builder().deduceEnvironment(false).environments("prod").start())
                .hasStackTraceContaining("latchkey.uri is not set")
                .hasStackTraceContaining("latchkey.uri=redis://localhost:6379");
    }

    @Test
    void aUriIsUsedInAnyEnvironment() {
        try (ApplicationContext context = ApplicationContext.builder().deduceEnvironment(false).environments("prod")
                .properties(Map.of("latchkey.uri", "mem://startup-test")).start()) {
            assertThat(context.getBean(LockClient.class).lock("x").isLocked()).isFalse();
        }
    }

    @Test
    void theClientNameIsStoredWithEachHold() throws Exception {
        try (ApplicationContext context = ApplicationContext.builder().deduceEnvironment(false).environments("prod")
                .properties(Map.of("latchkey.uri", "mem://startup-test-name", "latchkey.client-name", "billing-7"))
                .start()) {
            io.latchkey.DistributedLock lock = context.getBean(LockClient.class).lock("named");
            try (io.latchkey.LockLease lease = lock.acquire()) {
                assertThat(lock.holder()).hasValueSatisfying(h -> assertThat(h.clientName()).isEqualTo("billing-7"));
            }
        }
    }

    @Test
    void badLockedMethodsFailTheStartNamingTheMethod() {
        assertThatThrownBy(() -> ApplicationContext.run(Map.of("test.async-orders", "true"), "test"))
                .hasStackTraceContaining("@Locked on io.latchkey.micronaut.AsyncOrders.ship(long orderId): the method "
                        + "returns java.util.concurrent.CompletionStage (a future)");
        assertThatThrownBy(() -> ApplicationContext.run(Map.of("test.bad-template", "true"), "test"))
                .hasStackTraceContaining("@Locked on io.latchkey.micronaut.BadTemplateOrders.ship(long orderId)")
                .hasStackTraceContaining("id");
        assertThatThrownBy(() -> ApplicationContext.run(Map.of("test.bad-duration", "true"), "test"))
                .hasStackTraceContaining("waitTime must be a duration with a unit such as 500ms, 30s, 10m or PT10M "
                        + "but was '5'");
        assertThatThrownBy(() -> ApplicationContext.run(Map.of("test.bad-schedule", "true"), "test"))
                .hasStackTraceContaining("@LockedSchedule on io.latchkey.micronaut.BadScheduleJob.report(): "
                        + "lockAtLeastFor (PT2S) must not exceed lockAtMostFor (PT1S)");
    }
}
