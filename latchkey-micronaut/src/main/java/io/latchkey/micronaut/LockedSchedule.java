package io.latchkey.micronaut;

import io.micronaut.aop.Around;
import io.micronaut.context.annotation.Executable;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs a Micronaut {@code @Scheduled} method on one instance per schedule tick: the instance that takes the lock runs
 * the method, every other instance skips that tick quietly (no exception, a DEBUG log line).
 *
 * <pre>{@code
 * @Scheduled(fixedRate = "1m")
 * @LockedSchedule(name = "nightly-report", lockAtLeastFor = "30s")
 * void report() { ... }
 * }</pre>
 *
 * <p><b>Ownership</b> is the {@link io.latchkey.LockLease} of {@link io.latchkey.DistributedLock#tryAcquire}, not
 * the thread: the lock is never reentrant here and may be released by another thread after {@link #lockAtLeastFor()}.
 * The method never waits for the lock: it is tried once per tick.
 *
 * <p><b>Lease.</b> Without {@link #lockAtMostFor()} the watchdog renews the lease for as long as the method runs, and
 * a crashed instance's lock frees itself after {@code latchkey.watchdog-timeout}. With {@link #lockAtMostFor()} the
 * lease is fixed at that length: a run that outlives it loses the lock, and the next tick elsewhere may start.
 *
 * <p><b>Lost lock.</b> When the lease is lost while the method runs, {@link #onLost()} decides:
 * {@link OnLost#FLAG} (default) leaves the run alone and lets it check {@link LockedRun#isLockValid()};
 * {@link OnLost#INTERRUPT} also interrupts the running thread. Either way the loss is logged at WARN when the run
 * ends. An interrupt the loss delivered after the method returned is cleared, so it never reaches the scheduler's
 * next task.
 *
 * <p><b>Errors.</b> A backend that cannot be reached fails the tick with
 * {@link io.latchkey.LockUnavailableException} (the scheduler logs it, the method does not run). The method must
 * return {@code void}; a bad duration or a non-void method fails the application's start naming the method. Once the
 * application context is stopping, ticks are skipped.
 *
 * <p><b>Memory effects</b> are those of the lock: what a run did before its release happens-before what the next
 * run, on any instance of the same backend, does after acquiring.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD})
@Around
@Executable(processOnStartup = true)
public @interface LockedSchedule {

    /**
     * {@return the lock name} Empty (the default): the declaring class's simple name and the method name,
     * {@code ReportJob.report}.
     */
    String name() default "";

    /**
     * {@return the fixed lease, as {@code 10m}, {@code 30s}, {@code 500ms} or ISO-8601 ({@code PT10M})} A number
     * without a unit is an error. Empty (the default): the watchdog renews the lease while the method runs.
     */
    String lockAtMostFor() default "";

    /**
     * {@return how long the lock stays held at least, counted from its acquisition, when the method finishes sooner}
     * An instance whose scheduler fires a little later then finds the tick taken. Released by a Latchkey thread when it
     * has passed; on shutdown, released at once. Same format as {@link #lockAtMostFor()}; at most
     * {@link #lockAtMostFor()} when that is set; {@code 0s} by default.
     */
    String lockAtLeastFor() default "0s";

    /** {@return what a run does when its lock is lost while it runs; {@link OnLost#FLAG} by default} */
    OnLost onLost() default OnLost.FLAG;

    /** What happens to a run whose lock was lost. */
    enum OnLost {
        /** Let it finish; it can read {@link LockedRun#isLockValid()}. The loss is logged at WARN. */
        FLAG,
        /** Interrupt the thread running it as soon as the loss is known (and log at WARN). */
        INTERRUPT
    }
}
