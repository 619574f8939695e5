package io.latchkey.redis;

import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watchdog of a client's watchdog-renewed permits (permit-expirable semaphores acquired without a lease):
 * every renewal interval one script per 512 permits (per hash slot on a cluster), across all semaphores of the
 * client, gives each live permit a new lease of {@code watchdogTimeout} from the server's now. A permit whose lease had already run out is dropped
 * and logged (the API has no loss signal; its release then returns {@code false}); a failed round trip is retried
 * at the next tick (the lease covers three). Runs on the client's timer thread and never blocks it; stops with the
 * timer, so a closed or dead client's permits expire {@code watchdogTimeout} after their last renewal.
 */
final class PermitRenewer {

    private static final Logger log = LoggerFactory.getLogger(PermitRenewer.class);
    static final int BATCH = 512;

    /** permit id → the leases key of its semaphore. */
    private final Map<String, String> permits = new ConcurrentHashMap<>();
    private final ScriptExecutor executor;
    private final ScheduledExecutorService scheduler;
    private final long leaseMillis;
    private final long intervalMillis;
    private final AtomicBoolean ticking = new AtomicBoolean();
    private final ReentrantLock startLock = new ReentrantLock();
    private ScheduledFuture<?> task; // guarded by startLock

    PermitRenewer(ScriptExecutor executor, ScheduledExecutorService scheduler, long leaseMillis,
                  long intervalMillis) {
        this.executor = executor;
        this.scheduler = scheduler;
        this.leaseMillis = leaseMillis;
        this.intervalMillis = Math.max(1, intervalMillis);
    }

    /** The lease a watchdog permit is taken with and renewed to. */
    long leaseMillis() {
        return leaseMillis;
    }

    /** Renews {@code permitId} of the semaphore whose leases key is {@code leasesKey} from now on. */
    void add(String permitId, String leasesKey) {
        permits.put(permitId, leasesKey);
        startLock.lock();
        try {
            if (task == null) {
                task = scheduler.scheduleWithFixedDelay(this::tick, intervalMillis, intervalMillis,
                        TimeUnit.MILLISECONDS);
            }
        } catch (RejectedExecutionException e) {
            permits.remove(permitId); // the client is closing
        } finally {
            startLock.unlock();
        }
    }

    /** Stops renewing {@code permitId} (released, or given a fixed lease); whether it was renewed here. */
    boolean remove(String permitId, String leasesKey) {
        return permits.remove(permitId, leasesKey);
    }

    boolean isRenewed(String permitId) {
        return permits.containsKey(permitId);
    }

    int size() {
        return permits.size();
    }

    private void tick() {
        if (permits.isEmpty() || !ticking.compareAndSet(false, true)) {
            return; // a slow previous round is still out: skip rather than pile up
        }
        List<Map.Entry<String, String>> all = new ArrayList<>(permits.entrySet());
        List<java.util.concurrent.CompletableFuture<?>> rounds = new ArrayList<>();
        // One script per 512 permits; on a cluster also per slot (a script may only touch one slot's keys).
        for (List<Map.Entry<String, String>> batch : RenewBatches.split(all, BATCH, executor.cluster(),
                Map.Entry::getValue)) {
            rounds.add(renew(batch));
        }
        java.util.concurrent.CompletableFuture.allOf(rounds.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
                .whenComplete((v, e) -> ticking.set(false));
    }

    private java.util.concurrent.CompletableFuture<?> renew(List<Map.Entry<String, String>> batch) {
        int n = batch.size();
        String[] keys = new String[n];
        String[] args = new String[n + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < n; i++) {
            keys[i] = batch.get(i).getValue();
            args[i + 1] = batch.get(i).getKey();
        }
        return executor.<List<Object>>run(PermitSemaphoreScripts.RENEW, ScriptOutputType.MULTI, keys, args)
                .whenComplete((reply, error) -> {
                    if (error != null) {
                        log.debug("renewing {} permits failed; retrying at the next tick", n, error);
                        return;
                    }
                    for (int i = 0; i < n; i++) {
                        Object renewed = reply.get(i);
                        if (!(renewed instanceof Long) || (Long) renewed != 1L) {
                            Map.Entry<String, String> lost = batch.get(i);
                            if (permits.remove(lost.getKey(), lost.getValue())) {
                                log.warn("permit {} of {} was lost: its lease ran out before it could be renewed",
                                        lost.getKey(), lost.getValue());
                            }
                        }
                    }
                });
    }
}
