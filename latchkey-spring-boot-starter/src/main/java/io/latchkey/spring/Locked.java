package io.latchkey.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.concurrent.TimeUnit;

/**
 * Runs the annotated method of a Spring bean while holding the distributed lock {@link #name()} of the application's
 * {@link io.latchkey.LockClient}: {@code acquire; try { method } finally { release }}.
 *
 * <pre>{@code
 * @Locked(name = "'order:' + #orderId", waitTime = 2, leaseTime = -1, timeUnit = TimeUnit.SECONDS)
 * public void ship(long orderId) {
 *     long token = LockedRun.currentLease().orElseThrow().fencingToken();
 *     orders.markShipped(orderId, token); // the store refuses a token older than the last one it saw
 * }
 * }</pre>
 *
 * <p><b>Ownership and fencing.</b> The call holds a {@link io.latchkey.LockLease} of the lock
 * ({@link io.latchkey.DistributedLock#acquire()}), which {@link LockedRun#currentLease()} returns inside the method:
 * its {@link io.latchkey.LockLease#fencingToken() fencing token} goes with the method's writes, so that a store can
 * refuse the late write of a holder that lost the lock (see {@code FencingGuard} in latchkey-jdbc), and
 * {@link LockedRun#isLockValid()} tells a long method whether it still holds the lock. A {@code @Locked} method that
 * calls another one on the same name on the same thread reenters: the inner call runs under the outer lease. The
 * lease is not the thread-owned {@link io.latchkey.DistributedLock#lock()}: code inside the method that calls
 * {@code lock()} on the same name waits for the method's own lease like any other owner. The method must return on
 * the thread that called it (a {@code CompletableFuture} or reactive return value is not awaited: the lock is
 * released when the method returns the future).
 *
 * <p><b>Waiting</b> follows {@code java.util.concurrent.locks.Lock}: {@link #waitTime()} {@code < 0} (the default)
 * waits as long as it takes, like {@code lock()}, and is not interruptible; {@code 0} tries once, like
 * {@code tryLock()}; a positive value waits at most that long, like {@code tryLock(time, unit)}. A wait that ends
 * without the lock throws {@link LockNotAcquiredException} (with the name and how long it waited) and the method
 * does not run. An interrupt during a timed wait ends it the same way, with the interrupt flag restored (or
 * rethrows the {@code InterruptedException} if the method declares it). A backend that cannot be reached throws
 * {@link io.latchkey.LockUnavailableException} within the client's operation timeout.
 *
 * <p><b>Lease.</b> {@link #leaseTime()} {@code < 0} (the default) keeps the lock for as long as the method runs: the
 * client's watchdog renews it. A positive lease is fixed: if the method outlives it the lock expires under it.
 *
 * <p><b>A lost lock</b> (renewal failed, lease ran out, session expired) is reported at the end: releasing throws
 * {@link io.latchkey.LockLostException}, which the caller gets instead of the method's result, because the work ran
 * partly unprotected. With {@link #failIfLost()} {@code false} it is logged at WARN and the result returned. If the
 * method itself threw, its exception propagates with the {@code LockLostException} added as suppressed.
 *
 * <p><b>Memory effects</b> are those of the lock: what a call did before its release happens-before what the next
 * holder's call does after its acquire (on the same backend, which orders the two).
 *
 * <p>Named {@code Locked} rather than {@code DistributedLock} so that it never clashes with the
 * {@link io.latchkey.DistributedLock} interface in the same source file.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Locked {

    /**
     * {@return the lock name, a SpEL expression over the method's parameters and beans} Parameters are
     * {@code #orderId}, or {@code #p0}/{@code #a0} when compiled without {@code -parameters}; beans are
     * {@code @bean}. A constant name needs quotes: {@code "'nightly-report'"}. It must evaluate to a non-empty
     * value; its {@code toString()} is the name.
     */
    String name();

    /**
     * {@return how long to wait for the lock, in {@link #timeUnit()}} Negative (the default) waits forever,
     * {@code 0} does not wait.
     */
    long waitTime() default -1;

    /**
     * {@return the lease, in {@link #timeUnit()}} Negative (the default) has the watchdog renew it while the method
     * runs; a positive lease is fixed.
     */
    long leaseTime() default -1;

    /** {@return the unit of {@link #waitTime()} and {@link #leaseTime()}; milliseconds by default} */
    TimeUnit timeUnit() default TimeUnit.MILLISECONDS;

    /**
     * {@return whether a lock found lost at unlock fails the call with {@code LockLostException}} {@code true} by
     * default; {@code false} logs the loss at WARN and returns the method's result.
     */
    boolean failIfLost() default true;
}
