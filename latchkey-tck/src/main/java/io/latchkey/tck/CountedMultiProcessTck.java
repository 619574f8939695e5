package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Capability;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Processes that die or race, for the counted primitives: a JVM holding a watchdog permit is killed with SIGKILL
 * (no release, no shutdown hook) and its permit returns after its lease — not before, while its watchdog renewed
 * it; three JVMs count one latch down at once and no count-down is lost. Only for backends whose state lives
 * outside the JVM.
 */
public abstract class CountedMultiProcessTck extends TckBase {

    /** Child JVMs may start slowly on a busy CI machine. */
    private static final Duration START_UP = Duration.ofSeconds(40);

    /** The URI with which a child JVM reaches the same backend state as {@link #newClient}'s clients. */
    protected abstract String childUri();

    @Test
    void aKilledProcesssWatchdogPermitReturnsAfterItsLeaseNotBefore() throws Exception {
        assumeCapability(Capability.PERMIT_EXPIRABLE_SEMAPHORE);
        String name = newName();
        long watchdogMillis = watchdogTimeout().toMillis();
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(name);
        assertThat(semaphore.trySetPermits(1)).isTrue();
        try (ChildJvm holder = ChildJvm.start("permit-holder", CountedHolderMain.class, "permit", childUri(), name,
                Long.toString(watchdogMillis))) {
            String id = holder.awaitLine("LEASED", START_UP).substring("LEASED ".length());
            assertThat(semaphore.availablePermits()).isZero();
            Thread.sleep(2 * watchdogMillis + watchdogMillis / 6); // the kill then falls between two renewals
            assertThat(semaphore.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)))
                    .as("the child's permit, renewed by its watchdog beyond one watchdog timeout").isEmpty();
            holder.kill();
            long killed = System.nanoTime();
            Optional<String> mine = semaphore.tryAcquire(Duration.ofMillis(watchdogMillis).plus(slack()),
                    Duration.ofSeconds(30));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
            System.out.printf("%s: a SIGKILLed holder's watchdog permit (watchdog timeout %d ms) was back after %d ms%n",
                    backendName(), watchdogMillis, millis);
            assertThat(mine).as("the permit after the dead holder's lease; %s", holder.describe()).isPresent();
            assertThat(millis).as("not at once: the lease runs out (renewed every %d ms)", watchdogMillis / 3)
                    .isGreaterThanOrEqualTo(watchdogMillis / 6);
            assertThat(semaphore.release(id)).as("the dead holder's permit id").isFalse();
            assertThat(semaphore.release(mine.get())).isTrue();
        }
    }

    @Test
    void countDownsFromThreeProcessesAreNeverLost() throws Exception {
        assumeCapability(Capability.COUNT_DOWN_LATCH);
        int perChild = 100;
        String name = newName();
        DistributedCountDownLatch latch = client().countDownLatch(name);
        DistributedCountDownLatch go = client().countDownLatch(name + ":go");
        assertThat(latch.trySetCount(3L * perChild)).isTrue();
        assertThat(go.trySetCount(1)).isTrue();
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start("count-down-" + i, CountedHolderMain.class, "countdown", childUri(), name,
                        Integer.toString(perChild)));
            }
            for (ChildJvm child : children) {
                child.awaitLine("READY", START_UP);
            }
            long start = System.nanoTime();
            go.countDown();
            assertThat(latch.await(Duration.ofSeconds(60))).as("count %d", latch.getCount()).isTrue();
            System.out.printf("%s: %d count-downs from 3 JVMs in %d ms%n", backendName(), 3 * perChild,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            for (ChildJvm child : children) {
                child.awaitLine("DONE", slack());
            }
            assertThat(latch.getCount()).isZero();
        } finally {
            for (ChildJvm child : children) {
                child.close();
            }
        }
    }
}
