package io.latchkey.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.micronaut.context.ApplicationContext;
import io.micronaut.management.health.indicator.HealthResult;
import io.micronaut.health.HealthStatus;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The test environment's in-memory client, @Locked, the health indicator and the meters, in one context. */
@MicronautTest
class LockedTest {

    @Inject
    Orders orders;

    @Inject
    LockClient client;

    @Inject
    ApplicationContext context;

    @Test
    void lockedCallsOnOneNameExcludeEachOtherAndRenderTheirName() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
            try {
                return orders.hold(42, entered, release);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(client.lock("order:42").isLocked()).isTrue();

        assertThatThrownBy(() -> orders.hold(42, new CountDownLatch(1), new CountDownLatch(0)))
                .isInstanceOf(LockNotAcquiredException.class)
                .hasMessageContaining("lock 'order:42' not acquired within PT0S")
                .satisfies(e -> assertThat(((LockNotAcquiredException) e).lockName()).isEqualTo("order:42"));
        // another order is another lock
        assertThat(orders.hold(43, new CountDownLatch(1), new CountDownLatch(0))).isEqualTo("order:43");

        release.countDown();
        assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo("order:42");
        assertThat(client.lock("order:42").isLocked()).isFalse();
    }

    @Test
    void fencingTokensIncreaseAndTheLeaseIsReachableInsideOnly() {
        long first = orders.token(7);
        long second = orders.token(7);
        assertThat(second).isGreaterThan(first);

        LockLease lease = orders.transfer(new Orders.Transfer("acc-1", "acc-2"));
        assertThat(lease.lockName()).isEqualTo("account:acc-1");
        assertThat(lease.isValid()).isFalse(); // released when the method returned
        assertThat(LockedRun.currentLease()).isEmpty();
    }

    @Test
    void aScheduledRunThatLosesItsLeaseIsInterruptedAndTheInterruptDoesNotLeak() {
        LosingJob job = context.getBean(LosingJob.class);
        long start = System.nanoTime();
        job.run();
        assertThat(job.interrupted).isTrue();
        assertThat(job.validAtEnd).isFalse();
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).isLessThan(java.time.Duration.ofSeconds(5));
    }

    @Test
    void healthIsUpAndTheMetersCountTheAcquires() {
        HealthResult health = Mono.from(context.getBean(LatchkeyHealthIndicator.class).getResult())
                .block(java.time.Duration.ofSeconds(5));
        assertThat(health.getName()).isEqualTo("latchkey");
        assertThat(health.getStatus()).isEqualTo(HealthStatus.UP);
        assertThat(health.getDetails()).isInstanceOf(Map.class);
        assertThat(((Map<?, ?>) health.getDetails()).get("clientId")).isEqualTo(client.clientId());

        orders.token(8);
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertThat(registry.find("latchkey.lock.acquire").tag("outcome", "acquired").timer()).isNotNull();
        assertThat(registry.find("latchkey.lock.held").timer()).isNotNull();
    }
}
