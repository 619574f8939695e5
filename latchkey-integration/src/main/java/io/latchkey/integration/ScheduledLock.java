package io.latchkey.integration;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock of one scheduled method ({@code @LockedSchedule}, {@code @LockedScheduled}), checked once, and what each of
 * its runs does with it: try the lock without waiting (held elsewhere: skip the run quietly), hold it at most
 * {@code lockAtMostFor} (without it the watchdog renews the lease while the method runs), note or interrupt a loss
 * while the method runs ({@code onLost}), and after the method keep the lock until {@code lockAtLeastFor} has passed
 * since the start ({@link DelayedReleases}), so that a tick that ends early is not run again by another node's
 * clock. A run whose lease was lost releases nothing it does not hold and says in the log that another node may have
 * run meanwhile.
 *
 * <p>Each framework's interceptor reads the annotation, then per run: {@link #tryAcquire(LockClient)},
 * {@link #start(LockLease)}, the method, {@link Run#finish()} in a {@code finally}, {@link #end}.
 */
public final class ScheduledLock {

    private static final Logger LOG = LoggerFactory.getLogger(ScheduledLock.class);

    private final String annotation;
    private final String name;
    private final Duration lockAtMostFor;
    private final Duration lockAtLeastFor;
    private final boolean interruptOnLost;

    private ScheduledLock(String annotation, String name, Duration lockAtMostFor, Duration lockAtLeastFor,
                          boolean interruptOnLost) {
        this.annotation = annotation;
        this.name = name;
        this.lockAtMostFor = lockAtMostFor;
        this.lockAtLeastFor = lockAtLeastFor;
        this.interruptOnLost = interruptOnLost;
    }

    /**
     * Checks the annotation's attributes.
     *
     * @param annotation the annotation, such as {@code "@LockedSchedule"}, for the log
     * @param where the annotation and method, for the messages
     * @param name the lock name
     * @param lockAtMostFor the longest hold as duration text; null for a hold the watchdog renews while the method runs
     * @param lockAtLeastFor the shortest hold as duration text
     * @param interruptOnLost whether a loss interrupts the running method (else it is only noted)
     * @return the checked lock
     * @throws IllegalArgumentException if a duration is not one ({@link DurationText}), {@code lockAtMostFor} is zero
     *     or {@code lockAtLeastFor} exceeds it
     */
    public static ScheduledLock of(String annotation, String where, String name, String lockAtMostFor,
                                   String lockAtLeastFor, boolean interruptOnLost) {
        Duration atMost = lockAtMostFor == null ? null : DurationText.parse(where + " lockAtMostFor", lockAtMostFor);
        Duration atLeast = DurationText.parse(where + " lockAtLeastFor", lockAtLeastFor);
        if (atMost != null && atMost.isZero()) {
            throw new IllegalArgumentException(where + ": lockAtMostFor must be positive");
        }
        if (atMost != null && atLeast.compareTo(atMost) > 0) {
            throw new IllegalArgumentException(String.format("%s: lockAtLeastFor (%s) must not exceed lockAtMostFor "
                    + "(%s)", where, atLeast, atMost));
        }
        return new ScheduledLock(annotation, name, atMost, atLeast, interruptOnLost);
    }

    /** {@return the lock name} */
    public String name() {
        return name;
    }

    /** {@return the longest hold; null for a hold the watchdog renews while the method runs} */
    public Duration lockAtMostFor() {
        return lockAtMostFor;
    }

    /** {@return the shortest hold, counted from the start of the run} */
    public Duration lockAtLeastFor() {
        return lockAtLeastFor;
    }

    /**
     * Tries the lock without waiting.
     *
     * @param client the application's client
     * @return the lease, or null when another node holds the lock or this thread was interrupted (the flag is
     *     restored): a skipped run
     */
    public LockLease tryAcquire(LockClient client) {
        DistributedLock lock = client.lock(name);
        Optional<LockLease> lease;
        try {
            lease = tryAcquire(lock);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            LOG.debug("{} '{}': interrupted while trying the lock; skipping this run", annotation, name);
            return null;
        }
        if (lease.isEmpty()) {
            LOG.debug("{} '{}': held elsewhere; skipping this run", annotation, name);
            return null;
        }
        return lease.get();
    }

    /**
     * One try of {@code lock} without waiting, for this lock's {@code lockAtMostFor}.
     *
     * @param lock the lock named {@link #name()}
     * @return the lease, empty when another node holds the lock
     * @throws InterruptedException if this thread is interrupted
     */
    public Optional<LockLease> tryAcquire(DistributedLock lock) throws InterruptedException {
        return lockAtMostFor == null ? lock.tryAcquire(Duration.ZERO) : lock.tryAcquire(Duration.ZERO, lockAtMostFor);
    }

    /**
     * A run starts on this thread with {@code lease}: a loss from now on is noted, or interrupts this thread with
     * {@code onLost = INTERRUPT}, until {@link Run#finish()}.
     *
     * @param lease the run's lease
     * @return the run
     */
    public Run start(LockLease lease) {
        Run run = new Run(Thread.currentThread(), interruptOnLost);
        lease.onLost(run::lost);
        return run;
    }

    /**
     * After the method: releases the lease now, or once {@code lockAtLeastFor} has passed since the start. A lease lost
     * during the run is logged (another node may have run meanwhile) and released only to clean up.
     *
     * @param lease the run's lease
     * @param wasLost what {@link Run#finish()} returned
     * @param ran how long the method ran
     * @param releases where a release waits for {@code lockAtLeastFor}
     */
    public void end(LockLease lease, boolean wasLost, Duration ran, DelayedReleases releases) {
        if (wasLost || !lease.isValid()) {
            LOG.warn("{} '{}': the lock was lost while the method ran ({} ms); another node may have run meanwhile",
                    annotation, name, ran.toMillis());
            try {
                lease.release();
            } catch (LockLostException | LockUnavailableException expected) {
                // the loss is what we just reported; the release only cleans up
            }
            return;
        }
        Duration rest = lockAtLeastFor.minus(ran);
        if (rest.isNegative() || rest.isZero()) {
            DelayedReleases.release(annotation, lease);
        } else {
            releases.releaseAfter(lease, rest);
        }
    }

    /**
     * One whole run of the method: {@link #tryAcquire(LockClient)} (null, a skipped run, when held elsewhere), the
     * method with the lease current, then {@link #end}.
     *
     * @param client the application's client
     * @param releases where a release waits for {@code lockAtLeastFor}
     * @param body the method
     * @param <X> what it throws
     * @return what it returned; null for a skipped run
     * @throws X what it threw (the lease is released or handed to {@code releases} all the same)
     */
    public <X extends Throwable> Object run(LockClient client, DelayedReleases releases, LockedCall.Body<X> body)
            throws X {
        LockLease lease = tryAcquire(client);
        if (lease == null) {
            return null;
        }
        long start = System.nanoTime();
        Run run = start(lease);
        LockLease previous = CurrentLease.enter(lease);
        try {
            return body.proceed();
        } finally {
            CurrentLease.exit(previous);
            boolean wasLost = run.finish();
            end(lease, wasLost, Duration.ofNanos(System.nanoTime() - start), releases);
        }
    }

    /**
     * One run's state, so that a loss interrupts only the run it belongs to: RUNNING until the method returns (then
     * DONE) or the lease is lost (then LOST, and with interruption INTERRUPTING until the interrupt is sent).
     */
    public static final class Run {
        private static final int RUNNING = 0;
        private static final int DONE = 1;
        private static final int INTERRUPTING = 2;
        private static final int LOST = 3;

        private final Thread thread;
        private final boolean interrupt;
        private final AtomicInteger state = new AtomicInteger(RUNNING);

        private Run(Thread thread, boolean interrupt) {
            this.thread = thread;
            this.interrupt = interrupt;
        }

        /** On a Latchkey thread: the lease was lost. */
        private void lost() {
            if (interrupt) {
                if (state.compareAndSet(RUNNING, INTERRUPTING)) {
                    thread.interrupt();
                    state.set(LOST);
                }
            } else {
                state.compareAndSet(RUNNING, LOST);
            }
        }

        /**
         * On the running thread, once the method returned or threw: ends the run. An interrupt sent for a loss is
         * cleared, so that it does not reach the scheduler's next task.
         *
         * @return whether the lease was lost during the run
         */
        public boolean finish() {
            if (state.compareAndSet(RUNNING, DONE)) {
                return false;
            }
            if (interrupt) {
                while (state.get() == INTERRUPTING) {
                    Thread.onSpinWait(); // the other thread is between its CAS and interrupt(): a few instructions
                }
                Thread.interrupted(); // our interrupt must not reach the scheduler's next task
            }
            return true;
        }
    }
}
