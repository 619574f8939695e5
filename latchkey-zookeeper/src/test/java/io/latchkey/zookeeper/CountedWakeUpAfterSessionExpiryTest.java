package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A semaphore waiter whose session expired while it waited: the new session's handle knows none of the old
 * watches, so the client registers its persistent watches again on reconnect, and a permit added afterwards wakes the
 * waiter at once rather than at the engine's next re-check (5 s).
 */
class CountedWakeUpAfterSessionExpiryTest {

    @Test
    void aWaiterIsWokenByItsWatchAfterItsSessionExpired() throws Exception {
        String name = "wake-expiry-" + UUID.randomUUID();
        ClientOptions shortSession = ClientOptions.builder().watchdogTimeout(Duration.ofMillis(1500))
                .operationTimeout(Duration.ofSeconds(5)).build();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             LockClient waiter = LockClient.connect("zookeeper://127.0.0.1:" + proxy.port(), shortSession);
             LockClient other = LockClient.connect(SharedZooKeeper.server().uri())) {
            DistributedSemaphore waiting = waiter.semaphore(name);
            assertThat(waiting.trySetPermits(0)).isTrue();
            CompletableFuture<Void> acquired = waiting.acquireAsync(1);
            Thread.sleep(300);
            assertThat(acquired).isNotDone();

            proxy.cut();
            Thread.sleep(4000); // well past the session timeout: the server expires the session
            proxy.restore();
            // wait for the new session: a read through it answers
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true) {
                try {
                    waiting.availablePermits();
                    break;
                } catch (RuntimeException e) {
                    assertThat(System.nanoTime() - deadline).as("reconnected within 20 s").isNegative();
                    Thread.sleep(100);
                }
            }
            Thread.sleep(500); // the wake-up of the reconnect itself has been looked at
            assertThat(acquired).isNotDone();

            long t0 = System.nanoTime();
            other.semaphore(name).addPermits(1);
            acquired.get(10, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).as("woken by the watch")
                    .isLessThan(2500);
            waiting.release();
        }
    }
}
