package io.latchkey.quarkus;

import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a CDI bean while holding the distributed lock {@link #name()} of the application's
 * {@link io.latchkey.LockClient}: {@code acquire; try { method } finally { release }}.
 *
 * <pre>{@code
 * @Locked(name = "order:{orderId}", waitTime = "2s")
 * public void ship(long orderId) {
 *     long token = LockedRun.currentLease().orElseThrow().fencingToken();
 *     orders.markShipped(orderId, token); // the store refuses a token older than the last one it saw
 * }
 * }</pre>
 *
 * <p><b>The name</b> is a {@link io.latchkey.LockNameTemplate} over the method's parameters: {@code {orderId}},
 * {@code {transfer.from}} (public accessors), {@code {{}} for a literal brace. The template of every {@code @Locked}
 * method is checked against its parameter names when the application is built: an unknown parameter or a bad template
 * fails the build naming the method. Parameter names need {@code javac -parameters}, which Quarkus projects set.
 *
 * <p><b>Ownership and fencing.</b> The call holds a {@link io.latchkey.LockLease} of the lock, which
 * {@link LockedRun#currentLease()} returns inside the method: its {@link io.latchkey.LockLease#fencingToken() fencing
 * token} goes with the method's writes, so that a store can refuse the late write of a holder that lost the lock, and
 * {@link LockedRun#isLockValid()} tells a long method whether it still holds it. A {@code @Locked} method that calls
 * another one on the same name on the same thread reenters: the inner call runs under the outer lease. The method must
 * return on the thread that called it (a {@code Uni}, {@code CompletionStage} or other asynchronous result is not
 * awaited: the lock is released when the method returns it).
 *
 * <p><b>Waiting</b> follows {@code java.util.concurrent.locks.Lock}: no {@link #waitTime()} (the default) waits as
 * long as it takes, like {@code lock()}, and is not interruptible; {@code "0s"} tries once, like {@code tryLock()}; a
 * positive duration waits at most that long, like {@code tryLock(time, unit)}. A wait that ends without the lock throws
 * {@link LockNotAcquiredException} (with the name and the wait) and the method does not run. An interrupt during a
 * timed wait ends it the same way, with the interrupt flag restored (or rethrows the {@code InterruptedException} if
 * the method declares it). A backend that cannot be reached throws {@link io.latchkey.LockUnavailableException} within
 * {@code latchkey.operation-timeout}.
 *
 * <p><b>Lease.</b> No {@link #leaseTime()} (the default) keeps the lock for as long as the method runs: the client's
 * watchdog renews it, and a crashed holder's lock frees itself after {@code latchkey.watchdog-timeout}. A lease time
 * is fixed: if the method outlives it the lock expires under it.
 *
 * <p><b>A lost lock</b> (renewal failed, lease ran out, session expired) is reported at the end: releasing throws
 * {@link io.latchkey.LockLostException}, which the caller gets instead of the method's result, because the work ran
 * partly unprotected. With {@link #failIfLost()} {@code false} it is logged at WARN and the result returned. If the
 * method itself threw, its exception propagates with the {@code LockLostException} added as suppressed. The method is
 * not interrupted when the lock is lost (as with the Spring starter's {@code @Locked}).
 *
 * <p><b>Memory effects</b> are those of the lock: what a call did before its release happens-before what the next
 * holder's call does after its acquire (on the same backend, which orders the two).
 *
 * <p>Durations are written {@code 500ms}, {@code 5s}, {@code 10m}, {@code 2h}, {@code 1d} or ISO-8601
 * ({@code PT5S}); a number without a unit is an error (at build time).
 */
@InterceptorBinding
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface Locked {

    /**
     * {@return the lock name, a template over the method's parameters such as {@code "order:{orderId}"}} It must
     * render to a non-empty name.
     */
    @Nonbinding
    String name();

    /**
     * {@return how long to wait for the lock, e.g. {@code "5s"} or {@code "PT5S"}} Empty (the default) waits as long
     * as it takes; {@code "0s"} does not wait.
     */
    @Nonbinding
    String waitTime() default "";

    /**
     * {@return the lease, e.g. {@code "30s"}} Empty (the default) has the watchdog renew it while the method runs; a
     * lease time is fixed.
     */
    @Nonbinding
    String leaseTime() default "";

    /**
     * {@return whether a lock found lost at release fails the call with {@code LockLostException}} {@code true} by
     * default; {@code false} logs the loss at WARN and returns the method's result.
     */
    @Nonbinding
    boolean failIfLost() default true;
}
