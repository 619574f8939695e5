package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockEventListener;
import io.latchkey.LockHolder;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Who held the lock, after a wait ran out: asked once, after the time-out and only for a wait that waited; a single
 * look that finds the lock busy ({@code tryLock()}) and a client without a listener for it ask nothing.
 */
class TimedOutHolderTest {

    @Test
    void aTimedOutWaitAsksOnceAndASingleLookNever() throws Exception {
        String server = CountingMemClient.newServer();
        List<LockHolder> told = new CopyOnWriteArrayList<>();
        ClientOptions options = CountingMemClient.shortWatchdog().toBuilder().eventListener(new LockEventListener() {
            @Override
            public void timedOutHeldBy(String lockName, Duration waited, LockHolder holder) {
                told.add(holder);
            }
        }).build();
        try (LockClient holder = LockClient.connect("mem://" + server,
                    CountingMemClient.shortWatchdog().toBuilder().clientName("billing-7").build());
             CountingMemClient waiter = new CountingMemClient(server, options)) {
            LockLease lease = holder.lock("order:42").acquire();
            DistributedLock lock = waiter.lock("order:42");

            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
            Thread.sleep(50);
            assertThat(waiter.counting().holders.get()).as("a single look asks nobody").isZero();

            assertThat(lock.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
            await().atMost(Duration.ofSeconds(5)).until(() -> told.size() == 1);
            assertThat(told.get(0).clientName()).isEqualTo("billing-7");
            assertThat(told.get(0).fencingToken()).hasValue(lease.fencingToken());
            assertThat(waiter.counting().holders.get()).as("one query per timed-out wait").isEqualTo(1);
            lease.release();
        }
    }

    @Test
    void withoutAListenerForItATimedOutWaitAsksNothing() throws Exception {
        String server = CountingMemClient.newServer();
        try (LockClient holder = LockClient.connect("mem://" + server, CountingMemClient.shortWatchdog());
             CountingMemClient waiter = new CountingMemClient(server, CountingMemClient.shortWatchdog())) {
            LockLease lease = holder.lock("order:42").acquire();
            assertThat(waiter.lock("order:42").tryLock(30, TimeUnit.MILLISECONDS)).isFalse();
            Thread.sleep(50);
            assertThat(waiter.counting().holders.get()).isZero();
            assertThat(waiter.lock("order:42").holder()).hasValueSatisfying(
                    h -> assertThat(h.fencingToken()).hasValue(lease.fencingToken()));
            assertThat(waiter.counting().holders.get()).as("holder() is one query").isEqualTo(1);
            lease.release();
        }
    }
}
