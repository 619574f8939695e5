package io.latchkey.core.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The release of every hold a client still has when it closes ({@link LockEngine#close()}): the holds are already
 * marked lost (their holders told), no longer renewed and out of their names' local state; here each one's remote
 * release is sent at once, all in parallel, and the closing thread waits for the answers at most the operation
 * timeout in total. A release that fails or does not answer in time leaves the hold to expire with its lease, as
 * after a crash. No local lock is held: each release touches only its exact grant (owner id and token), so it can
 * never end a later hold of the same name.
 */
final class CloseRelease {
    private static final Logger log = LoggerFactory.getLogger(CloseRelease.class);

    /** How many releases were sent on close, and how many of them the backend confirmed so far. */
    record Outcome(int sent, AtomicInteger released) {
        static final Outcome NONE = new Outcome(0, new AtomicInteger());
    }

    private CloseRelease() {
    }

    /**
     * The body of {@link LockEngine#closeAsync()} once the watchdog stopped: fails every waiter, ends every watchdog
     * permit, marks every held lock lost (all before any listener runs), runs the listeners, then sends the releases
     * unless {@link io.latchkey.ClientOptions#releaseOnClose()} is off.
     */
    static CompletableFuture<Outcome> endAll(LockEngine engine, java.util.Collection<PermitHold> permits) {
        io.latchkey.LockUnavailableException failure = new io.latchkey.LockUnavailableException(
                String.format("client closed (%s backend, client %s)", engine.backendName, engine.clientId));
        for (NameState s : engine.nameStates.values()) {
            s.failAll(failure);
            s.sweep(true);
        }
        // watchdog permits are no longer renewed: released below, or they end with their lease on the server
        List<PermitHold> ended = new java.util.ArrayList<>();
        for (PermitHold p : permits) {
            if (p.end()) {
                ended.add(p);
            }
        }
        List<Hold> lost = new java.util.ArrayList<>();
        for (NameState s : engine.nameStates.values()) {
            for (Hold h : s.liveHolds()) {
                if (h.beginLost(LockEngine.CLIENT_CLOSED)) {
                    lost.add(h);
                }
            }
        }
        // every holder is told before anything is released: a lock is never free while its holder still counts on it
        lost.forEach(Hold::finishLost);
        return engine.options.releaseOnClose() ? releaseAll(engine, lost, ended)
                : CompletableFuture.completedFuture(Outcome.NONE);
    }

    /** Sends the release of every hold and permit at once; the future completes when all of them answered. */
    static CompletableFuture<Outcome> releaseAll(LockEngine engine, List<Hold> holds, List<PermitHold> permits) {
        AtomicInteger released = new AtomicInteger();
        CompletableFuture<?>[] answers = new CompletableFuture<?>[holds.size() + permits.size()];
        int n = 0;
        for (Hold h : holds) {
            // the clean-up of a lost hold is claimed once: an unlock racing the close does not send it again
            if (!h.claimCleanUp()) {
                continue;
            }
            answers[n++] = LockEngine.callRemote(() -> h.nameState.ops.release(h.grant)).handle((ok, e) -> {
                if (e == null && Boolean.TRUE.equals(ok)) {
                    released.incrementAndGet();
                    log.info("released lock '{}' (token {}) on close of the {} client", h.name(),
                            h.grant.fencingToken(), engine.backendName);
                } else {
                    log.warn("lock '{}' (token {}) was not released on close of the {} client; it expires with its "
                            + "lease: {}", h.name(), h.grant.fencingToken(), engine.backendName,
                            e != null ? LockEngine.unwrap(e).toString() : "the backend no longer had it");
                }
                return null;
            });
        }
        for (PermitHold p : permits) {
            answers[n++] = LockEngine.callRemote(() -> p.key.ops().release(p.key.name(), p.key.permitId()))
                    .handle((ok, e) -> {
                        if (e == null && Boolean.TRUE.equals(ok)) {
                            released.incrementAndGet();
                            log.info("released permit {} of semaphore '{}' on close of the {} client",
                                    p.key.permitId(), p.key.name(), engine.backendName);
                        } else {
                            log.warn("permit {} of semaphore '{}' was not released on close of the {} client; it "
                                    + "expires with its lease: {}", p.key.permitId(), p.key.name(), engine.backendName,
                                    e != null ? LockEngine.unwrap(e).toString() : "the backend no longer had it");
                        }
                        return null;
                    });
        }
        Outcome outcome = new Outcome(n, released);
        if (n == 0) {
            return CompletableFuture.completedFuture(outcome);
        }
        return CompletableFuture.allOf(java.util.Arrays.copyOf(answers, n)).thenApply(v -> outcome);
    }

    /**
     * Waits for the releases of {@link #releaseAll}, at most the operation timeout from now; an interrupt does not
     * cut the wait short (an interrupted close must not leave locks held) and is restored after it.
     */
    static void await(LockEngine engine, CompletableFuture<?> releases, long deadlineNanos) {
        if (releases.isDone()) {
            return;
        }
        long startedAt = System.nanoTime();
        long timeoutNanos = deadlineNanos - startedAt;
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    Object o = releases.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (o instanceof Outcome done) {
                        log.debug("close of the {} client released {} of {} holds in {} ms", engine.backendName,
                                done.released().get(), done.sent(),
                                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt));
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    log.warn("the {} client closed before the backend answered every release (waited {} ms, the "
                            + "operation timeout); holds not released expire with their lease", engine.backendName,
                            TimeUnit.NANOSECONDS.toMillis(Math.max(0, timeoutNanos)));
                    return;
                } catch (ExecutionException e) {
                    return; // every answer is handled in releaseAll: not reached
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
