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
 * gets the lock within the watchdog timeout, with a greater fencing token; a JVM that gets SIGTERM (a normal exit)
 * releases its lock on the way out, so another JVM gets it at once, not after the lease. Only for backends whose
 * state lives outside the JVM.
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

    /** The child's watchdog lease in the SIGTERM test: long, so that a lock left to expire shows. */
    private static final long SIGTERM_HOLDER_WATCHDOG_MILLIS = 30_000;

    /** How soon after a SIGTERMed holder's exit another JVM must get its lock. */
    private static final Duration AFTER_NORMAL_EXIT = Duration.ofSeconds(2);

    @Test
    void sigtermedHolderJvmReleasesItsLockOnExit() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        try (ChildJvm holder = ChildJvm.start("sigterm-holder", LockHolderMain.class, childUri(), name,
                Long.toString(SIGTERM_HOLDER_WATCHDOG_MILLIS))) {
            long childToken = Long.parseLong(holder.awaitLine("LOCKED", START_UP).substring(7));
            assertThat(lock.isLocked()).isTrue();

            long terminatedAt = System.nanoTime();
            holder.terminate();
            long exitedAt = System.nanoTime();
            // waits a little past the bound, so that a failure shows how late the lock came (or that it did not)
            boolean acquired = lock.tryLock(AFTER_NORMAL_EXIT.multipliedBy(2).toMillis(), TimeUnit.MILLISECONDS);
            long afterExit = millisSince(exitedAt);
            System.out.printf("[%s] SIGTERMed holder: exit %d ms after SIGTERM, lock acquired %d ms after exit%n",
                    getClass().getSimpleName(), TimeUnit.NANOSECONDS.toMillis(exitedAt - terminatedAt), afterExit);
            assertThat(acquired).as("lock of a SIGTERMed holder within %s of its exit (its lease is %d ms); %s",
                    AFTER_NORMAL_EXIT.multipliedBy(2), SIGTERM_HOLDER_WATCHDOG_MILLIS, holder.describe()).isTrue();
            try {
                assertThat(afterExit).as("ms from the SIGTERMed holder's exit to acquire")
                        .isLessThan(AFTER_NORMAL_EXIT.toMillis());
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
