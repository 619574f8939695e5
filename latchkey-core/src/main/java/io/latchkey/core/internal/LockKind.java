package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A lock as a {@link WaitKind}: an attempt is {@link RemoteLockOps#tryAcquire} with the waiter's place in the server's
 * queue; a success is a {@link Hold} registered in the name's holders (renewed by the watchdog, reported to the
 * listener); a busy answer is re-checked as {@link Backoff} decides from the backend's hint; a grant that answers a
 * waiter nobody waits for any more is released.
 */
final class LockKind implements WaitKind<Hold> {
    static final LockKind INSTANCE = new LockKind();
    /** The timed-out wait's line keeps the engine's logger, where it always was. */
    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(LockEngine.class);

    private LockKind() {
    }

    @Override
    public CompletableFuture<Look> attempt(NameState s, Waiter<Hold> w, String entry) {
        return LockEngine.callRemote(() -> s.ops.tryAcquire(w.request, entry)).thenApply(a -> a == null ? null
                : new Look(a.grant(), Backoff.recheckNanos(a, s.engine.time.nanoTime() - w.startNanos), a.entry()));
    }

    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(NameState s, Runnable changed) {
        return s.ops.subscribe(s.name, changed);
    }

    @Override
    public Hold grantedLocked(NameState s, Waiter<Hold> w, Grant taken) {
        Hold h = new Hold(s, w.ownerId, w.threadOwned(), taken, s.engine.time.nanoTime());
        s.putHolderLocked(h); // a loss this owner never unlocked is superseded by the new hold
        return h;
    }

    @Override
    public void granted(NameState s, Waiter<Hold> w, Hold h) {
        // renewal and expiry are armed before anyone can see the hold
        s.engine.remember(h);
        s.engine.events.acquired(s.name, h.acquiredAtNanos - w.startNanos);
    }

    @Override
    public CompletableFuture<?> giveBack(NameState s, Waiter<?> w, Grant g) {
        CompletableFuture<Boolean> f = s.engine.writes.call(() -> s.ops.release(g));
        return f.whenComplete((ok, e) -> {
            if (e != null) {
                NameState.log.debug("could not release late grant {}; it expires with its lease", g, e);
            }
        });
    }

    @Override
    public void cleanUp(NameState s, Waiter<?> w) {
        s.engine.cleanUps.cleanUp(String.format("clean-up of the unanswered attempt %s of owner %s on lock '%s'",
                w.request.attemptId(), w.ownerId, s.name), () -> s.ops.cleanUpAttempt(w.request));
    }

    /** A wait ran out: the event, then, if it waited and someone listens, who held it (asked async, never blocking). */
    @Override
    public void timedOut(NameState s, Waiter<?> w) {
        LockEngine engine = s.engine;
        String name = s.name;
        long waitedNanos = engine.time.nanoTime() - w.startNanos;
        engine.events.timedOut(name, waitedNanos);
        if (w.waits && (log.isDebugEnabled() || engine.events.wantsHolder())) {
            LockEngine.callRemote(() -> s.ops.holder(name)).whenComplete((who, e) -> {
                if (log.isDebugEnabled()) {
                    log.debug("wait for lock '{}' on the {} backend ran out after {} ms; held by {}", name,
                            engine.backendName, TimeUnit.NANOSECONDS.toMillis(waitedNanos),
                            e != null ? "? (" + LockEngine.unwrap(e) + ")" : who == null ? "nobody known" : who);
                }
                if (e == null && who != null) {
                    engine.events.timedOutHeldBy(name, waitedNanos, who);
                }
            });
        }
    }
}
