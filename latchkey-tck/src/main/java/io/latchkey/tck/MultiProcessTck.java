package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Processes that die: a JVM holding a lock is killed with SIGKILL (no release, no shutdown hook), and another JVM
 * gets the lock within the watchdog timeout, with a greater fencing token. Only for backends whose state lives
 * outside the JVM.
 */
public abstract class MultiProcessTck extends TckBase {

    /** Child JVMs may start slowly on a busy CI machine. */
    private static final Duration START_UP = Duration.ofSeconds(40);

    /** The URI with which a child JVM reaches the same backend state as {@link #newClient}'s clients. */
    protected abstract String childUri();

    @Test
    void killedHolderJvmFreesTheLockWithinTheWatchdogTimeout() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        try (ChildJvm holder = ChildJvm.start("holder", LockHolderMain.class, childUri(), name,
                Long.toString(watchdogTimeout().toMillis()))) {
            long childToken = Long.parseLong(holder.awaitLine("LOCKED", START_UP).substring(7));
            // Held for longer than one watchdog timeout: the child's watchdog renews it.
            Thread.sleep(watchdogTimeout().toMillis() * 3 / 2);
            assertThat(lock.isLocked()).isTrue();
            assertThat(lock.tryLock()).isFalse();
            assertThat(lock.holder()).as("the other process's hold, named host:pid by default").hasValueSatisfying(
                    h -> {
                        assertThat(h.clientName()).endsWith(":" + holder.pid());
                        assertThat(h.fencingToken()).hasValue(childToken);
                    });

            holder.kill();
            long killedAt = System.nanoTime();
            assertThat(lock.tryLock(watchdogTimeout().plus(slack()).toMillis(), TimeUnit.MILLISECONDS))
                    .as("lock of a SIGKILLed holder; %s", holder.describe()).isTrue();
            long waited = millisSince(killedAt);
            try {
                assertThat(waited).as("ms from SIGKILL to acquire").isLessThan(
                        watchdogTimeout().plus(slack()).toMillis());
                assertThat(lock.fencingToken().getAsLong()).isGreaterThan(childToken);
            } finally {
                lock.unlock();
            }
        }
    }

    @Test
    void twoJvmsContendAndTheSurvivorTakesOverAfterSigkill() throws Exception {
        String name = newName();
        String watchdog = Long.toString(watchdogTimeout().toMillis());
        try (ChildJvm first = ChildJvm.start("first", LockHolderMain.class, childUri(), name, watchdog)) {
            long firstToken = Long.parseLong(first.awaitLine("LOCKED", START_UP).substring(7));
            try (ChildJvm second = ChildJvm.start("second", LockHolderMain.class, childUri(), name, watchdog)) {
                second.awaitLine("WAITING", START_UP);
                Thread.sleep(watchdogTimeout().toMillis() * 3 / 2);
                assertThat(second.printed("LOCKED")).as("second JVM got a held lock; %s", second.describe())
                        .isFalse();

                first.kill();
                long killedAt = System.nanoTime();
                long secondToken = Long.parseLong(
                        second.awaitLine("LOCKED", watchdogTimeout().plus(slack())).substring(7));
                assertThat(millisSince(killedAt)).as("ms from SIGKILL to the other JVM's acquire")
                        .isLessThan(watchdogTimeout().plus(slack()).toMillis());
                assertThat(secondToken).isGreaterThan(firstToken);
                assertThat(client().lock(name).isLocked()).isTrue();
            }
            // Closing the survivor's input makes it release normally.
            Optional<LockLease> after = client().lock(name).tryAcquire(slack());
            assertThat(after).as("free after the survivor released").isPresent();
            after.get().release();
        }
    }
}
