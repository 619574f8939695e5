package io.latchkey.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.micronaut.context.ApplicationContext;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** @LockedSchedule skips ticks another holder has; shutdown lets running @Locked work end before the client closes. */
class ScheduleAndShutdownTest {

    @Test
    void aTickIsSkippedWhileAnotherHolderHasTheLock() throws Exception {
        try (ApplicationContext context = ApplicationContext.run(Map.of("test.report-job", "true"), "test")) {
            ReportJob job = context.getBean(ReportJob.class);
            LockClient client = context.getBean(LockClient.class);
            LockLease elsewhere = client.lock("report").acquire();
            int before = job.runs.get();
            Thread.sleep(300); // about six ticks
            assertThat(job.runs.get()).isEqualTo(before);
            elsewhere.release();
            await().atMost(Duration.ofSeconds(5)).until(() -> job.runs.get() > before);
        }
    }

    @Test
    void shutdownRefusesNewWorkLetsRunningWorkEndThenClosesTheClient() throws Exception {
        ApplicationContext context = ApplicationContext.run(Map.of("latchkey.shutdown-grace-period", "5s"), "test");
        Orders orders = context.getBean(Orders.class);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> running = CompletableFuture.supplyAsync(() -> {
            try {
                return orders.hold(1, entered, release);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<Void> stopped = CompletableFuture.runAsync(context::stop);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThatThrownBy(
                () -> orders.hold(2, new CountDownLatch(1), new CountDownLatch(0)))
                .isInstanceOf(LockNotAcquiredException.class).hasMessageContaining("stopping"));
        assertThat(stopped).isNotDone(); // waiting for the running call
        release.countDown();
        // the running call released its lock through a client that was still open
        assertThat(running.get(5, TimeUnit.SECONDS)).isEqualTo("order:1");
        stopped.get(10, TimeUnit.SECONDS);
    }
}
