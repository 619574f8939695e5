package io.latchkey.core.internal;

import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.core.Arguments;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The engine's {@link PermitExpirableSemaphore} on a backend's {@link RemoteCountOps}: waiting in the name's
 * {@link NameState} (one remote attempt at a time per client, woken by the backend's subscription or the
 * re-check), permit ids drawn by the engine ({@code <client id>-p<sequence>}), and watchdog permits
 * ({@link #acquire()}) renewed by the client's one {@link Watchdog} in the same batches as lock holds.
 *
 * <p>A fixed-lease permit returns after its lease, also when its holder crashed: the server expires it, or, for a
 * server without an expiry that ends on time, the backend's {@link RemoteCountOps#leaseEnded} called from the client's
 * one heap of fixed leases (no timer per permit). A watchdog permit lives while this client renews it; a crashed
 * client's watchdog permits return about one watchdog timeout later. A timed-out or interrupted acquire leaves no permit behind (a permit granted after
 * its waiter left is released again).
 */
final class EnginePermitExpirableSemaphore implements PermitExpirableSemaphore {

    private final LockEngine engine;
    private final RemoteCountOps ops;
    private final String name;
    private final NameKey.Count<Grant> key;
    private final PermitCounts counts;

    EnginePermitExpirableSemaphore(LockEngine engine, RemoteCountOps ops, String name) {
        this.engine = engine;
        this.ops = ops;
        this.counts = new PermitCounts(engine, ops, name);
        this.name = name;
        this.key = new NameKey.Count<>(ops, name, CountKinds.PERMITS);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String acquire(Duration leaseTime) throws InterruptedException {
        return lease(Checks.leaseMillis(leaseTime), false, -1).orElseThrow();
    }

    @Override
    public Optional<String> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long leaseMillis = Checks.leaseMillis(leaseTime);
        return lease(leaseMillis, false, Checks.waitNanos(waitTime));
    }

    @Override
    public String acquire() throws InterruptedException {
        return lease(watchdogMillis(), true, -1).orElseThrow();
    }

    @Override
    public Optional<String> tryAcquire(Duration waitTime) throws InterruptedException {
        long waitNanos = Checks.waitNanos(waitTime);
        return lease(watchdogMillis(), true, waitNanos);
    }

    private long watchdogMillis() {
        if (!ops.renewsPermits()) {
            throw new UnsupportedOperationException(String.format(
                    "the %s backend does not renew permits by a watchdog; pass a lease time (semaphore '%s')",
                    engine.backendName, name));
        }
        return engine.watchdogMillis;
    }

    private Optional<String> lease(long leaseMillis, boolean watchdog, long waitNanos) throws InterruptedException {
        engine.checkOpen();
        Grant grant = CountKinds.awaitLease(engine, key, leaseMillis, watchdog, waitNanos);
        if (grant == null) {
            return Optional.empty();
        }
        granted(grant);
        return Optional.of(grant.ownerId());
    }

    @Override
    public CompletableFuture<String> acquireAsync(Duration leaseTime) {
        return leaseAsync(Checks.leaseMillis(leaseTime), false, -1, Optional::orElseThrow);
    }

    @Override
    public CompletableFuture<Optional<String>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        long leaseMillis = Checks.leaseMillis(leaseTime);
        return leaseAsync(leaseMillis, false, Checks.waitNanos(waitTime), id -> id);
    }

    /** Cancelling the result withdraws the waiter (see {@link CountKinds#submit}). */
    private <T> CompletableFuture<T> leaseAsync(long leaseMillis, boolean watchdog, long waitNanos,
                                                java.util.function.Function<Optional<String>, T> finish) {
        engine.checkOpen();
        return CountKinds.submitLease(engine, key, leaseMillis, watchdog, waitNanos, grant -> {
            if (grant == null) {
                return finish.apply(Optional.empty());
            }
            granted(grant);
            return finish.apply(Optional.of(grant.ownerId()));
        });
    }

    /**
     * A watchdog permit is renewed from now on; a fixed one goes into the client's heap of fixed leases, whose timer
     * has the backend end it at the server when its lease runs out ({@link RemoteCountOps#leaseEnded}).
     */
    private void granted(Grant grant) {
        if (grant.watchdog()) {
            engine.rememberPermit(new PermitHold(engine, ops, grant));
        } else {
            engine.watchdog.trackFixedPermit(new PermitHold.Key(ops, name, grant.ownerId()),
                    grant.requestedAtNanos() + grant.leaseMillis() * 1_000_000L);
        }
    }

    /** Stops renewing the permit, or watching its fixed lease: no renewal or lease end outlives a release. */
    private PermitHold.Key stopTracking(String permitId) {
        PermitHold.Key k = new PermitHold.Key(ops, name, permitId);
        PermitHold held = engine.permit(k);
        if (held != null) {
            held.end();
        }
        engine.watchdog.untrackFixedPermit(k);
        return k;
    }

    @Override
    public CompletableFuture<Boolean> releaseAsync(String permitId) {
        Objects.requireNonNull(permitId, "permitId");
        engine.checkOpen();
        stopTracking(permitId);
        return engine.boundedRemote(ops.release(name, permitId), "release", name);
    }

    /** Stops renewing the permit first (no renewal outlives a release), then releases it at the backend. */
    @Override
    public boolean release(String permitId) {
        Objects.requireNonNull(permitId, "permitId");
        engine.checkOpen();
        stopTracking(permitId);
        return engine.awaitRemote(ops.release(name, permitId), "release", name);
    }

    @Override
    public boolean updateLease(String permitId, Duration leaseTime) {
        Objects.requireNonNull(permitId, "permitId");
        long leaseMillis = Checks.leaseMillis(leaseTime);
        engine.checkOpen();
        PermitHold.Key k = new PermitHold.Key(ops, name, permitId);
        FixedPermit before = engine.watchdog.untrackFixedPermit(k);
        PermitHold held = engine.permit(k);
        if (held != null) {
            held.end();
        }
        long sentAt = engine.time.nanoTime();
        boolean updated;
        try {
            updated = engine.awaitRemote(ops.updateLease(name, permitId, leaseMillis), "updateLease", name);
        } catch (RuntimeException e) {
            if (before != null) {
                engine.watchdog.trackFixedPermit(k, before.endNanos); // not updated, as far as we know: ends as before
            }
            throw e;
        }
        if (updated) {
            engine.watchdog.trackFixedPermit(k, sentAt + leaseMillis * 1_000_000L);
        }
        return updated;
    }

    @Override
    public int availablePermits() {
        return counts.available();
    }

    @Override
    public boolean trySetPermits(int permits) {
        return counts.trySet(permits);
    }

    @Override
    public void addPermits(int permits) {
        counts.add(permits);
    }

    @Override
    public String toString() {
        return "PermitExpirableSemaphore{name='" + name + "', backend=" + engine.backendName + "}";
    }
}
