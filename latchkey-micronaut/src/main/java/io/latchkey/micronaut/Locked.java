package io.latchkey.micronaut;

import io.micronaut.aop.Around;
import io.micronaut.context.annotation.Executable;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Micronaut bean while holding the distributed lock {@link #name()} of the
 * application's {@link io.latchkey.LockClient}: {@code acquire; try { method } finally { release }}. Around advice,
 * woven at compile time: the bean's class must not be final, and only calls through the bean (not {@code this.})
 * are locked.
 *
 * <pre>{@code
 * @Locked(name = "order:{orderId}", waitTime = "2s")
 * public void ship(long orderId) {
 *     long token = LockedRun.currentLease().orElseThrow().fencingToken();
 *     orders.markShipped(orderId, token); // the store refuses a token older than the last one it saw
 * }
 * }</pre>
 *
 * <p><b>Name.</b> A {@link io.latchkey.LockNameTemplate} over the method's parameters, whose names Micronaut records
 * at compile time: {@code "order:{orderId}"}, {@code "account:{transfer.from}"}, or a constant {@code "report"}. It
 * is parsed once per method when the application context starts: a placeholder that names no parameter, a bad
 * duration or an asynchronous return type fails the start, naming the method.
 *
 * <p><b>Ownership and fencing.</b> The call holds a {@link io.latchkey.LockLease}, which
 * {@link LockedRun#currentLease()} returns inside the method: its fencing token goes with the method's writes, and
 * {@link LockedRun#isLockValid()} tells a long method whether it still holds the lock. A {@code @Locked} method that
 * calls another one on the same name on the same thread reenters: the inner call runs under the outer lease. The
 * method must return on the thread that called it: a {@code CompletionStage}, {@code Future} or Reactive Streams
 * {@code Publisher} return type is rejected at start-up (the lock would be released before the work ended).
 *
 * <p><b>Waiting</b> follows {@code java.util.concurrent.locks.Lock}: no {@link #waitTime()} (the default) waits as long
 * as it takes and is not interruptible; {@code "0s"} tries once; a positive value waits at most that long. A wait
 * that ends without the lock throws {@link LockNotAcquiredException} (with the name and the wait) and the method does
 * not run. An interrupt during a timed wait ends it the same way, with the interrupt flag restored. A backend that
 * cannot be reached throws {@link io.latchkey.LockUnavailableException} within the client's operation timeout. Once
 * the application context is stopping, new calls fail at once with {@link LockNotAcquiredException}.
 *
 * <p><b>Lease.</b> No {@link #leaseTime()} (the default) keeps the lock for as long as the method runs: the client's
 * watchdog renews it, and a crashed instance's lock frees itself after {@code latchkey.watchdog-timeout}. A lease
 * time is fixed: if the method outlives it the lock expires under it.
 *
 * <p><b>A lost lock</b> (renewal failed, lease ran out, session expired) is reported at the end: releasing throws
 * {@link io.latchkey.LockLostException}, which the caller gets instead of the method's result. With
 * {@link #failIfLost()} {@code false} it is logged at WARN and the result returned. If the method itself threw, its
 * exception propagates with the {@code LockLostException} added as suppressed.
 *
 * <p><b>Memory effects</b> are those of the lock: what a call did before its release happens-before what the next
 * holder's call does after its acquire.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD})
@Around
@Executable(processOnStartup = true)
public @interface Locked {

    /** {@return the lock name: a template over the method's parameters, such as {@code "order:{orderId}"}} */
    String name();

    /**
     * {@return how long to wait for the lock, as {@code 500ms}, {@code 5s}, {@code 2m} or ISO-8601 ({@code PT5S})} A
     * number without a unit is an error. Empty (the default) waits as long as it takes; {@code "0s"} does not wait.
     */
    String waitTime() default "";

    /**
     * {@return the fixed lease, in the format of {@link #waitTime()}} Empty (the default) has the watchdog renew the
     * lease while the method runs.
     */
    String leaseTime() default "";

    /**
     * {@return whether a lock found lost at release fails the call with {@code LockLostException}} {@code true} by
     * default; {@code false} logs the loss at WARN and returns the method's result.
     */
    boolean failIfLost() default true;
}
