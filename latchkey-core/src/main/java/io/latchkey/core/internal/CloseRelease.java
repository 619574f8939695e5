package io.latchkey.core.internal;

import java.util.ArrayList;
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

    private CloseRelease() {
    }

    static void releaseAll(LockEngine engine, List<Hold> holds, List<PermitHold> permits) {
        if (holds.isEmpty() && permits.isEmpty()) {
            return;
        }
        long startedAt = System.nanoTime();
        AtomicInteger released = new AtomicInteger();
        List<CompletableFuture<?>> answers = new ArrayList<>(holds.size() + permits.size());
        for (Hold h : holds) {
            // the clean-up of a lost hold is claimed once: an unlock racing the close does not send it again
            if (!h.claimCleanUp()) {
                continue;
            }
            answers.add(LockEngine.callRemote(() -> h.nameState.ops.release(h.grant)).handle((ok, e) -> {
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
            }));
        }
        for (PermitHold p : permits) {
            answers.add(LockEngine.callRemote(() -> p.key.ops().release(p.key.name(), p.key.permitId()))
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
                    }));
        }
        long timeoutNanos = engine.options.operationTimeout().toNanos();
        boolean interrupted = false;
        CompletableFuture<Void> all = CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0]));
        try {
            for (;;) {
                try {
                    all.get(Math.max(0, timeoutNanos - (System.nanoTime() - startedAt)), TimeUnit.NANOSECONDS);
                    break;
                } catch (InterruptedException e) {
                    // the close goes on: the bound is short, and an interrupted close must not leave locks held
                    interrupted = true;
                } catch (TimeoutException e) {
                    log.warn("{} of {} holds were released on close of the {} client within the operation timeout "
                            + "({} ms); the others expire with their lease", released.get(), answers.size(),
                            engine.backendName, TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
                    break;
                } catch (ExecutionException e) {
                    break; // every answer is handled above: not reached
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        log.debug("close of the {} client released {} of {} holds in {} ms", engine.backendName, released.get(),
                answers.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt));
    }
}
