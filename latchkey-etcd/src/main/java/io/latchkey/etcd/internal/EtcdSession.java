package io.latchkey.etcd.internal;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.PushRegistry;
import io.latchkey.core.MaintenanceScheduler;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's connection to etcd: the jetcd client, the client-wide etcd lease that keeps watchdog holds and
 * waiting keys alive, the client's scheduler for timers (its one timer thread, lent by the engine: nothing here blocks
 * on it), and the mapping of jetcd failures to
 * {@link LockUnavailableException} within the operation timeout.
 *
 * <h2>The shared lease</h2>
 * Granted on first use with a TTL of the watchdog timeout rounded up to whole seconds (etcd TTLs are seconds, and
 * the server may raise a TTL to its minimum, about 2 s). The engine's watchdog renews it with every renewal batch
 * of held locks; while keys merely wait (nothing held), this class sends the keep-alives itself, every third of the
 * TTL. With neither, it lapses and the next acquire grants a new one. When etcd reports the lease gone (it expired
 * during an outage or a pause), every key on it is gone: the listeners hear of it and the next acquire grants a new
 * lease.
 */
public final class EtcdSession implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EtcdSession.class);

    private final Client client;
    private final boolean owns;
    private final String endpoints;
    private final long operationTimeoutMillis;
    private final long sharedTtlSeconds;
    private final MaintenanceScheduler scheduler;
    private final List<LongConsumer> leaseLostListeners = new CopyOnWriteArrayList<>();
    private final List<BooleanSupplier> keepAliveNeeded = new CopyOnWriteArrayList<>();
    private final ReentrantLock leaseLock = new ReentrantLock();
    private final StrandedKeys stranded;
    private final PushRegistry<List<String>> queueWatches;
    // guarded by leaseLock
    private CompletableFuture<Long> sharedLease;
    private ScheduledFuture<?> keeper;
    private long refreshedLease;
    private long refreshedAtNanos;

    /**
     * @param endpoints for messages only (never with credentials)
     */
    /** The client's name, written into the value of each of its lock keys ({@link EtcdKeys#value}). */
    final String clientName;

    public EtcdSession(Client client, boolean owns, String endpoints, Duration operationTimeout,
                       Duration watchdogTimeout, MaintenanceScheduler scheduler) {
        this(client, owns, endpoints, operationTimeout, watchdogTimeout, scheduler,
                io.latchkey.ClientOptions.defaults().clientName());
    }

    /**
     * A session whose lock keys record {@code clientName} (see the other constructor for the rest).
     *
     * @param scheduler the client's scheduler: keep-alives, time bounds, retried deletes (its tasks never block)
     * @param clientName the client's name, written into the value of each of its lock keys
     */
    public EtcdSession(Client client, boolean owns, String endpoints, Duration operationTimeout,
                       Duration watchdogTimeout, MaintenanceScheduler scheduler, String clientName) {
        this.clientName = clientName;
        this.client = client;
        this.owns = owns;
        this.endpoints = endpoints;
        this.operationTimeoutMillis = Math.max(1, operationTimeout.toMillis());
        this.sharedTtlSeconds = Math.max(1, (watchdogTimeout.toMillis() + 999) / 1000);
        this.scheduler = scheduler;
        this.stranded = new StrandedKeys(this);
        this.queueWatches = new PushRegistry<>(this::watchDeletions);
    }

    public Client client() {
        return client;
    }

    /** The client's scheduler, shared with the engine's watchdog: tasks on it must not block. */
    public MaintenanceScheduler scheduler() {
        return scheduler;
    }

    public String endpoints() {
        return endpoints;
    }

    /** The shared lease's TTL in seconds, as asked of etcd (which may raise it to its minimum). */
    long sharedTtlSeconds() {
        return sharedTtlSeconds;
    }

    /** The shared lease's TTL in milliseconds (whole seconds). */
    long sharedTtlMillis() {
        return sharedTtlSeconds * 1000;
    }

    /** Keys whose release did not reach etcd, retried until it does. */
    StrandedKeys stranded() {
        return stranded;
    }

    /**
     * The client's one watch of the deletions per lock queue (prefix), shared by the lock kinds that queue there; a
     * push carries the deleted keys ({@code null}: the watch broke, or the waiting keys may be gone).
     */
    PushRegistry<List<String>> queueWatches() {
        return queueWatches;
    }

    private CompletableFuture<io.latchkey.core.RemoteCountOps.Subscription> watchDeletions(String prefix) {
        return EtcdChanges.deletions(this, prefix, deleted -> queueWatches.fire(prefix, deleted));
    }

    /** Deletes {@code key} if it still has {@code createRevision}; completes with whether it did. */
    CompletableFuture<Boolean> deleteIfCreatedAt(String key, long createRevision) {
        return bounded(client.getKVClient().txn()
                .If(new Cmp(EtcdKeys.bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(createRevision)))
                .Then(Op.delete(EtcdKeys.bytes(key), DeleteOption.DEFAULT))
                .commit(), "delete " + key).thenApply(TxnResponse::isSucceeded);
    }

    long ttlSecondsFor(long leaseMillis) {
        return Math.max(1, (leaseMillis + 999) / 1000);
    }

    /** Told the id of the shared lease once etcd reports it gone. */
    void onSharedLeaseLost(LongConsumer listener) {
        leaseLostListeners.add(listener);
    }

    /**
     * Asks this etcd session to keep the shared lease alive while {@code condition} holds (keys are waiting). Held keys
     * are kept alive by the engine's renewals; with neither, the lease lapses, so a key a lost reply left behind
     * cannot block its lock for longer than the TTL.
     */
    void keepAliveWhile(BooleanSupplier condition) {
        keepAliveNeeded.add(condition);
    }

    /** The shared lease's id, granting it first if there is none. */
    CompletableFuture<Long> sharedLease() {
        CompletableFuture<Long> lease;
        leaseLock.lock();
        try {
            if (sharedLease != null && !sharedLease.isCompletedExceptionally()) {
                return sharedLease;
            }
            // Claimed under the lock, granted outside it: no I/O while holding a local lock.
            lease = new CompletableFuture<>();
            sharedLease = lease;
            if (keeper == null && !scheduler.isShutdown()) {
                long period = Math.max(100, sharedTtlSeconds * 1000 / 3);
                keeper = scheduler.scheduleWithFixedDelay(this::keepAlive, period, period, TimeUnit.MILLISECONDS);
            }
        } finally {
            leaseLock.unlock();
        }
        long sentAt = System.nanoTime();
        bounded(client.getLeaseClient().grant(sharedTtlSeconds).thenApply(r -> {
            refreshed(r.getID(), sentAt);
            return r.getID();
        }), "grant a lease of " + sharedTtlSeconds + " s").whenComplete((id, e) -> {
            if (e != null) {
                lease.completeExceptionally(e);
            } else {
                lease.complete(id);
            }
        });
        return lease;
    }

    /** The shared lease's id if one is granted, else 0; never a round trip. */
    long currentSharedLease() {
        leaseLock.lock();
        try {
            CompletableFuture<Long> f = sharedLease;
            if (f == null || !f.isDone() || f.isCompletedExceptionally()) {
                return 0;
            }
            return f.join();
        } finally {
            leaseLock.unlock();
        }
    }

    /** Etcd reported {@code leaseId} gone: forget it (if it is the shared one) and tell the listeners. */
    void leaseGone(long leaseId) {
        boolean shared;
        leaseLock.lock();
        try {
            shared = currentSharedLeaseLocked() == leaseId;
            if (shared) {
                sharedLease = null;
            }
        } finally {
            leaseLock.unlock();
        }
        if (shared) {
            log.warn("etcd lease {} of this client expired on {}; its keys are gone", Long.toHexString(leaseId),
                    endpoints);
            leaseLostListeners.forEach(l -> l.accept(leaseId));
            queueWatches.fireAll(); // the waiting keys on it are gone too: the waiters queue again
        }
    }

    private long currentSharedLeaseLocked() {
        CompletableFuture<Long> f = sharedLease;
        return f == null || !f.isDone() || f.isCompletedExceptionally() ? 0 : f.join();
    }

    /**
     * One keep-alive of {@code leaseId}: completes with whether the lease still lives; exceptionally (with
     * {@link LockUnavailableException}) if etcd did not answer.
     */
    CompletableFuture<Boolean> keepAliveOnce(long leaseId) {
        long sentAt = System.nanoTime();
        CompletableFuture<Boolean> alive = client.getLeaseClient().keepAliveOnce(leaseId)
                .handle((r, e) -> {
                    if (e == null) {
                        if (r.getTTL() > 0) {
                            refreshed(leaseId, sentAt);
                        }
                        return r.getTTL() > 0;
                    }
                    if (isLeaseNotFound(e)) {
                        return false;
                    }
                    throw new CompletionException(e);
                });
        return bounded(alive, "keep lease " + Long.toHexString(leaseId) + " alive").thenApply(ok -> {
            if (!ok) {
                leaseGone(leaseId);
            }
            return ok;
        });
    }

    private void refreshed(long leaseId, long sentAtNanos) {
        leaseLock.lock();
        try {
            if (refreshedLease != leaseId || sentAtNanos - refreshedAtNanos > 0) {
                refreshedLease = leaseId;
                refreshedAtNanos = sentAtNanos;
            }
        } finally {
            leaseLock.unlock();
        }
    }

    /**
     * A moment ({@link System#nanoTime()}) no later than the start of {@code leaseId}'s current TTL on the server:
     * the send time of its latest confirmed grant or keep-alive, after a fresh keep-alive if that was more than a
     * third of the TTL ago. A key attached to a shared lease lives only as long as the lease, not a TTL from its
     * put, so a hold's local bound must start here. Completes with {@code null} if etcd reports the lease gone.
     */
    CompletableFuture<Long> ttlStartedAt(long leaseId) {
        leaseLock.lock();
        try {
            if (refreshedLease == leaseId
                    && System.nanoTime() - refreshedAtNanos < TimeUnit.SECONDS.toNanos(sharedTtlSeconds) / 3) {
                return CompletableFuture.completedFuture(refreshedAtNanos);
            }
        } finally {
            leaseLock.unlock();
        }
        long sentAt = System.nanoTime();
        return keepAliveOnce(leaseId).thenApply(ok -> ok ? sentAt : null);
    }

    private void keepAlive() {
        long lease = currentSharedLease();
        if (lease == 0 || keepAliveNeeded.stream().noneMatch(BooleanSupplier::getAsBoolean)) {
            return;
        }
        keepAliveOnce(lease).whenComplete((ok, e) -> {
            if (e != null) {
                log.debug("keep-alive of etcd lease {} failed: {}", Long.toHexString(lease), e.toString());
                queueWatches.fireAll(); // the server may be gone: the waiters ask it now, not trusting the watch
            }
        });
    }

    /** Revokes a lease (its keys go with it), best effort: failures are only logged. */
    void revoke(long leaseId) {
        client.getLeaseClient().revoke(leaseId).whenComplete((r, e) -> {
            if (e != null && !isLeaseNotFound(e)) {
                log.debug("revoking etcd lease {} failed: {}", Long.toHexString(leaseId), e.toString());
            }
        });
    }

    /**
     * {@code future}, failing with {@link LockUnavailableException} (naming the server and {@code operation}) if it
     * fails or takes longer than the operation timeout.
     */
    public <T> CompletableFuture<T> bounded(CompletableFuture<T> future, String operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> {
                // The call itself is not cancelled: jetcd may still deliver it after a reconnect, and callers that
                // created something clean it up from the original future.
                result.completeExceptionally(new LockUnavailableException(String.format(
                        "etcd %s did not answer '%s' within %d ms", endpoints, operation, operationTimeoutMillis),
                        new TimeoutException()));
            }, operationTimeoutMillis, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            timer = null;
        }
        ScheduledFuture<?> t = timer;
        future.whenComplete((v, e) -> {
            if (t != null) {
                t.cancel(false);
            }
            if (e == null) {
                result.complete(v);
            } else {
                result.completeExceptionally(unavailable(operation, e));
            }
        });
        return result;
    }

    /** A failure of jetcd as the exception callers see. */
    LockUnavailableException unavailable(String operation, Throwable e) {
        return io.latchkey.core.ConnectFailures.unavailable("etcd " + endpoints, operation, e);
    }

    static Throwable unwrap(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    static boolean isLeaseNotFound(Throwable e) {
        Throwable t = unwrap(e);
        while (t != null) {
            if (t instanceof EtcdException ee && ee.getErrorCode() == ErrorCode.NOT_FOUND) {
                return true;
            }
            String m = t.getMessage();
            if (m != null && m.contains("lease not found")) {
                return true;
            }
            t = t.getCause();
        }
        return false;
    }

    /**
     * Stops the timers; revokes the shared lease (so the keys of locks still held go at once rather than at the
     * end of their TTL: the engine has already marked them lost), and closes the jetcd client if this etcd session
     * created it.
     */
    @Override
    public void close() {
        long lease;
        leaseLock.lock();
        try {
            lease = currentSharedLeaseLocked();
            if (keeper != null) {
                keeper.cancel(false);
            }
        } finally {
            leaseLock.unlock();
        }
        if (lease != 0) {
            try {
                client.getLeaseClient().revoke(lease).get(operationTimeoutMillis, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                log.debug("revoking etcd lease {} at close failed: {}", Long.toHexString(lease), e.toString());
            }
        }
        if (owns) {
            client.close();
        }
    }
}
