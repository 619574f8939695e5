package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.ErrorCode;
import io.etcd.jetcd.common.exception.EtcdException;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.lease.LeaseGrantResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.ConnectFailures;
import io.latchkey.core.Grant;
import io.latchkey.core.MaintenanceScheduler;
import io.latchkey.core.PushRegistry;
import io.latchkey.core.RemoteCountOps;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's connection to etcd: the jetcd client, the client-wide lease of watchdog holds and waiting keys, the
 * watches that wake the engine's waiters, the renewal of held keys, and jetcd failures mapped to
 * {@link LockUnavailableException} within the operation timeout. Its timers run on the client's scheduler; nothing
 * here blocks on it.
 *
 * <h2>The shared lease</h2>
 * Granted on first use with the watchdog timeout rounded up to whole seconds as TTL (the server may raise it to its
 * minimum, about 2 s). The engine's renewals keep it alive; while keys merely wait, this class sends keep-alives every
 * third of the TTL. With neither, it lapses. When etcd reports it gone, every key on it is gone: the listeners hear of
 * it and the next acquire grants a new lease.
 *
 * <h2>Watches</h2>
 * A watch starts from the revision just after a read, so a subscription is complete (every later change reported)
 * when its future completes. Every event, and a broken watch, wakes the subscriber (the engine re-checks on its timer
 * if the watch stays broken).
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
    /** One watch of deletions per lock queue; a push carries the deleted keys ({@code null}: look at every key). */
    final PushRegistry<List<String>> queueWatches;
    /** The client's name, written into the value of each of its lock keys ({@link EtcdKeys#value}). */
    final String clientName;
    // guarded by leaseLock
    private CompletableFuture<Long> sharedLease;
    private ScheduledFuture<?> keeper;
    private long refreshedLease;
    private long refreshedAtNanos;

    /**
     * @param endpoints for messages only (never with credentials)
     * @param scheduler the client's scheduler: keep-alives, time bounds, retried deletes (its tasks never block)
     */
    public EtcdSession(Client client, boolean owns, String endpoints, Duration operationTimeout,
                       Duration watchdogTimeout, MaintenanceScheduler scheduler, String clientName) {
        this.clientName = clientName;
        this.client = client;
        this.owns = owns;
        this.endpoints = endpoints;
        this.operationTimeoutMillis = Math.max(1, operationTimeout.toMillis());
        this.sharedTtlSeconds = ttlSecondsFor(watchdogTimeout.toMillis());
        this.scheduler = scheduler;
        this.stranded = new StrandedKeys(this);
        this.queueWatches = new PushRegistry<>(this::watchDeletions);
    }

    public Client client() {
        return client;
    }

    MaintenanceScheduler scheduler() {
        return scheduler;
    }

    public String endpoints() {
        return endpoints;
    }

    /** As asked of etcd, which may raise it to its minimum. */
    long sharedTtlSeconds() {
        return sharedTtlSeconds;
    }

    StrandedKeys stranded() {
        return stranded;
    }

    /** Wakes {@code changed} at every change of {@code key} (a prefix if {@code prefix}). */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String key, boolean prefix, Runnable changed) {
        return watch(key, prefix, false, keys -> changed.run());
    }

    private CompletableFuture<RemoteCountOps.Subscription> watchDeletions(String prefix) {
        return watch(prefix, true, true, deleted -> queueWatches.fire(prefix, deleted));
    }

    /** Hands {@code events} the keys of each watch response; a broken watch hands it {@code null}. */
    private CompletableFuture<RemoteCountOps.Subscription> watch(String key, boolean prefix, boolean deletesOnly,
                                                                 Consumer<List<String>> events) {
        GetOption count = GetOption.builder().isPrefix(prefix).withCountOnly(true).build();
        return bounded(client.getKVClient().get(bytes(key), count), "read " + key).thenApply(r -> {
            WatchOption from = WatchOption.builder().isPrefix(prefix).withRevision(r.getHeader().getRevision() + 1)
                    .withNoPut(deletesOnly).build();
            Watch.Watcher watcher = client.getWatchClient().watch(bytes(key), from, Watch.listener(response -> {
                List<String> keys = new ArrayList<>(response.getEvents().size());
                for (WatchEvent event : response.getEvents()) {
                    keys.add(EtcdKeys.string(event.getKeyValue().getKey()));
                }
                events.accept(keys);
            }, error -> events.accept(null)));
            return watcher::close;
        });
    }

    /** Deletes {@code key} if it still has {@code createRevision}; completes with whether it did. */
    CompletableFuture<Boolean> deleteIfCreatedAt(String key, long createRevision) {
        return bounded(client.getKVClient().txn()
                .If(new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.createRevision(createRevision)))
                .Then(Op.delete(bytes(key), DeleteOption.DEFAULT))
                .commit(), "delete " + key).thenApply(TxnResponse::isSucceeded);
    }

    static long ttlSecondsFor(long leaseMillis) {
        return Math.max(1, (leaseMillis + 999) / 1000);
    }

    /** A fixed hold's own lease, rounded up to whole seconds. */
    CompletableFuture<LeaseGrantResponse> grantLease(long leaseMillis) {
        long ttl = ttlSecondsFor(leaseMillis);
        return bounded(client.getLeaseClient().grant(ttl), "grant a lease of " + ttl + " s");
    }

    /** The lease a new hold goes on: the shared one for a watchdog hold, else a lease of its own. */
    CompletableFuture<Long> leaseFor(boolean watchdog, long leaseMillis) {
        return watchdog ? sharedLease() : grantLease(leaseMillis).thenApply(LeaseGrantResponse::getID);
    }

    /** When a new hold's local bound starts: see {@link #ttlStartedAt}; a fixed hold's at its request. */
    CompletableFuture<Long> boundStart(boolean watchdog, long leaseId, long sentAt) {
        return watchdog ? ttlStartedAt(leaseId) : CompletableFuture.completedFuture(sentAt);
    }

    void onSharedLeaseLost(LongConsumer listener) {
        leaseLostListeners.add(listener);
    }

    /**
     * Keeps the shared lease alive while {@code condition} holds (keys wait); with no holds either it lapses, so a key
     * a lost reply left behind cannot block its lock for longer than the TTL.
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
        bounded(client.getLeaseClient().grant(sharedTtlSeconds), "grant a lease of " + sharedTtlSeconds + " s")
                .whenComplete((r, e) -> {
                    if (e != null) {
                        lease.completeExceptionally(e);
                    } else {
                        refreshed(r.getID(), sentAt);
                        lease.complete(r.getID());
                    }
                });
        return lease;
    }

    /** 0 if none is granted; never a round trip. */
    private long currentSharedLease() {
        leaseLock.lock();
        try {
            CompletableFuture<Long> f = sharedLease;
            return f == null || !f.isDone() || f.isCompletedExceptionally() ? 0 : f.join();
        } finally {
            leaseLock.unlock();
        }
    }

    /** Etcd reported {@code leaseId} gone: forget it (if it is the shared one) and tell the listeners. */
    void leaseGone(long leaseId) {
        boolean shared;
        leaseLock.lock();
        try {
            shared = currentSharedLease() == leaseId;
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

    /** Completes with whether the lease still lives; exceptionally if etcd did not answer. */
    CompletableFuture<Boolean> keepAliveOnce(long leaseId) {
        long sentAt = System.nanoTime();
        CompletableFuture<Boolean> alive = client.getLeaseClient().keepAliveOnce(leaseId).handle((r, e) -> {
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
     * A moment ({@link System#nanoTime()}) no later than the start of {@code leaseId}'s current TTL on the server (the
     * send time of its latest confirmed grant or keep-alive, refreshed if older than a third of the TTL), where a hold
     * on it must start its local bound; {@code null} if etcd reports the lease gone.
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

    /** Reads per renewal transaction: etcd refuses more than its {@code --max-txn-ops} (128 by default). */
    static final int MAX_TXN_OPS = 128;

    /**
     * One renewal batch of held keys: one keep-alive per lease, plus transactions of at most {@link #MAX_TXN_OPS}
     * reads. A key is still held if it exists with its create revision, on its lease, and that lease is alive.
     * Completes with the grants no longer held.
     *
     * @param what what the keys are, for the timeout message ({@code "lock keys"}, {@code "permit keys"})
     */
    CompletableFuture<Set<Grant>> renew(Collection<Grant> grants, String what) {
        if (grants.isEmpty()) {
            return CompletableFuture.completedFuture(Set.of());
        }
        List<Grant> list = new ArrayList<>(grants);
        Map<Long, CompletableFuture<Boolean>> alive = new HashMap<>();
        List<CompletableFuture<TxnResponse>> reads = new ArrayList<>();
        for (int from = 0; from < list.size(); from += MAX_TXN_OPS) {
            Op[] ops = new Op[Math.min(MAX_TXN_OPS, list.size() - from)];
            for (int i = 0; i < ops.length; i++) {
                EtcdGrantState hold = list.get(from + i).backendState(EtcdGrantState.class);
                alive.computeIfAbsent(hold.leaseId(), this::keepAliveOnce);
                ops[i] = Op.get(bytes(hold.key()), GetOption.DEFAULT);
            }
            reads.add(bounded(client.getKVClient().txn().Then(ops).commit(),
                    "read " + ops.length + " of " + list.size() + " " + what));
        }
        CompletableFuture<Void> read = CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]));
        return CompletableFuture.allOf(alive.values().toArray(new CompletableFuture<?>[0])).thenCombine(read,
                (x, y) -> {
                    Set<Grant> lost = new HashSet<>();
                    for (int i = 0; i < list.size(); i++) {
                        EtcdGrantState hold = list.get(i).backendState(EtcdGrantState.class);
                        List<KeyValue> kvs = reads.get(i / MAX_TXN_OPS).join().getGetResponses()
                                .get(i % MAX_TXN_OPS).getKvs();
                        boolean ours = !kvs.isEmpty() && kvs.get(0).getCreateRevision() == hold.createRevision()
                                && kvs.get(0).getLease() == hold.leaseId();
                        if (!ours || !alive.get(hold.leaseId()).join()) {
                            lost.add(list.get(i));
                        }
                    }
                    return lost;
                });
    }

    /** Best effort: failures are only logged. */
    void revoke(long leaseId) {
        client.getLeaseClient().revoke(leaseId).whenComplete((r, e) -> {
            if (e != null && !isLeaseNotFound(e)) {
                log.debug("revoking etcd lease {} failed: {}", Long.toHexString(leaseId), e.toString());
            }
        });
    }

    /**
     * {@code future}, failing with {@link LockUnavailableException} (naming the server and {@code operation}) if it
     * fails or outlasts the operation timeout. The call is not cancelled: jetcd may still deliver it after a
     * reconnect, and callers that created something clean it up from the original future.
     */
    public <T> CompletableFuture<T> bounded(CompletableFuture<T> future, String operation) {
        CompletableFuture<T> result = new CompletableFuture<>();
        ScheduledFuture<?> timer = null;
        try {
            timer = scheduler.schedule(() -> result.completeExceptionally(new LockUnavailableException(String.format(
                    "etcd %s did not answer '%s' within %d ms", endpoints, operation, operationTimeoutMillis),
                    new TimeoutException())), operationTimeoutMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            // closing: the driver's own failure ends the call
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

    LockUnavailableException unavailable(String operation, Throwable e) {
        return ConnectFailures.unavailable("etcd " + endpoints, operation, e);
    }

    static boolean isLeaseNotFound(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof EtcdException ee && ee.getErrorCode() == ErrorCode.NOT_FOUND
                    || t.getMessage() != null && t.getMessage().contains("lease not found")) {
                return true;
            }
        }
        return false;
    }

    /** Revokes the shared lease, so the keys of locks still held go at once rather than at the end of their TTL. */
    @Override
    public void close() {
        long lease;
        leaseLock.lock();
        try {
            lease = currentSharedLease();
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
