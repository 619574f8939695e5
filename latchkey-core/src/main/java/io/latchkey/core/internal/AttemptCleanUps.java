package io.latchkey.core.internal;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.RetriedRemoval;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The clean-up of an attempt whose answer never came (the operation timeout, a lost connection, a server paused while
 * the attempt waited in its input and ran it later): the server may have granted it — a lock's hold, a read hold, a
 * leased permit, a semaphore's permits — for a caller that is gone. Nobody would renew or release that grant: a
 * watchdog hold blocks the name for a watchdog timeout, a fixed lease for the lease, a semaphore's permits for ever.
 *
 * <p>So when an attempt fails, and its waiter makes no further attempt (a failed attempt ends its waiter), the engine
 * asks the backend to undo exactly what that request made, by the {@linkplain io.latchkey.core.AcquireRequest#attemptId()
 * attempt id} the backend stored with it ({@link io.latchkey.core.RemoteLockOps#cleanUpAttempt},
 * {@link io.latchkey.core.RemoteCountOps#cleanUpTake}; a leased permit's id is its attempt's own, so its
 * {@link io.latchkey.core.RemoteCountOps#release(String, String) release} does). A later hold of the same owner (a
 * thread's next {@code lock()}) has another id and is never touched. If the answer comes after all, late, the machine
 * gives the grant back instead ({@link WaitEnds#releaseLateGrant}): an attempt's future either fails or answers, so
 * exactly one of the two acts.
 *
 * <p>The first try goes at once (on the same connection as the attempt, so after it at the server); a try the server
 * did not answer ({@link LockUnavailableException}) is tried again on the watchdog's timer, after
 * {@value #FIRST_RETRY_MILLIS} ms and then a doubling pause of at most {@value #MAX_RETRY_MILLIS} ms, until the server
 * answers or the client closes. No lock is held; each clean-up has one try in flight at a time.
 */
final class AttemptCleanUps {
    private static final Logger log = LoggerFactory.getLogger(AttemptCleanUps.class);
    static final long FIRST_RETRY_MILLIS = 50;
    static final long MAX_RETRY_MILLIS = 1_000;

    private final LockEngine engine;
    private final RetriedRemoval retries;

    AttemptCleanUps(LockEngine engine) {
        this.engine = engine;
        this.retries = new RetriedRemoval((task, delayMillis) -> {
            if (engine.watchdog.schedule(task, TimeUnit.MILLISECONDS.toNanos(delayMillis)) == null) {
                throw new RejectedExecutionException("client closed");
            }
        }, () -> !engine.isClosed(), FIRST_RETRY_MILLIS, MAX_RETRY_MILLIS, log);
    }

    /**
     * Undoes what an unanswered attempt may have made, by {@code once}, tried now and again until the server answers.
     *
     * @param what the clean-up and where, for the log ("clean-up of the attempt 3k… of owner … on lock 'x'")
     */
    void cleanUp(String what, Supplier<CompletableFuture<?>> once) {
        CompletableFuture<?> first = engine.writes.call(once::get);
        first.whenComplete((r, e) -> {
            if (e == null) {
                if (Boolean.TRUE.equals(r)) {
                    log.debug("{}: removed what the attempt had made", what);
                }
                return;
            }
            if (engine.isClosed()) {
                // the client closed meanwhile (its connection with it): what is left ends with its lease
                log.debug("{} failed as the client closed: {}", what, LockEngine.unwrap(e).toString());
                return;
            }
            if (!(LockEngine.unwrap(e) instanceof LockUnavailableException)) {
                log.warn("{} failed; it ends with its lease on the server: {}", what, LockEngine.unwrap(e).toString());
                return;
            }
            retries.afterFailure(what, retry -> engine.writes.call(once::get),
                    t -> t instanceof LockUnavailableException, null);
        });
    }
}
