package io.latchkey.redis;

import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.Grant;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The remote half of the Redis permit-expirable semaphore ({@link RemoteCountOps}). Keys share the hash tag of
 * {@link SyncKeys#base}: {@code …:permits:total} (the permits in total, leased ones included; absent until set) and
 * {@code …:permits:leases} (a sorted set of leased permit ids scored by their expiry in the server's milliseconds),
 * so a permit's lease runs out on the server's clock alone, whatever happens to its holder; the scripts are
 * {@link PermitSemaphoreScripts}.
 *
 * <p><b>Permit ids</b> are drawn by the engine (random, 128 bits); {@link #release} and {@link #updateLease} act only
 * on a live lease of that id, so a holder whose lease ran out cannot free or extend a permit someone else took
 * meanwhile. Grants carry a token of this client's own counter: the API gives permits no fencing tokens, and the id
 * alone names the exact permit for {@link #renew}.
 *
 * <p><b>Wake-ups.</b> Releases, added permits and a first {@code trySetPermits} publish on
 * {@code latchkey_permits__channel:<base>}. A lease that runs out publishes nothing, so a refused attempt learns from
 * its script when the earliest lease ends and answers busy until then: the engine looks again at that time.
 *
 * <p><b>Watchdog permits</b> get a lease of the watchdog timeout that the engine's one watchdog extends with
 * {@link #renew}: one script per 512 permits (per hash slot on a cluster), pipelined.
 */
final class RedisPermitExpirableSemaphoreOps extends RedisCountOps {

    static final int RENEW_BATCH = 512;

    private final AtomicLong tokens = new AtomicLong();

    RedisPermitExpirableSemaphoreOps(String namespace, ScriptExecutor executor, PubSubChannels channels,
                                     long recheckMillis) {
        super("permits", namespace, executor, channels, recheckMillis);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        String base = base(name);
        return executor.<Long>run(PermitSemaphoreScripts.AVAILABLE, ScriptOutputType.INTEGER,
                new String[] {base + ":total", base + ":leases"}).thenApply(RedisCountOps::saturate);
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        String base = base(name);
        return executor.<Long>run(SemaphoreScripts.TRY_SET, ScriptOutputType.INTEGER,
                new String[] {base + ":total", channel(base)}, Integer.toString(permits)).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        String base = base(name);
        return executor.<Long>run(SemaphoreScripts.ADD, ScriptOutputType.INTEGER,
                new String[] {base + ":total", channel(base)}, Integer.toString(delta)).thenApply(r -> null);
    }

    @Override
    public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        String base = base(name);
        long sentAt = System.nanoTime();
        return executor.<Long>run(PermitSemaphoreScripts.ACQUIRE, ScriptOutputType.INTEGER,
                new String[] {base + ":total", base + ":leases"}, permitId, Long.toString(leaseMillis),
                Long.toString(recheckMillis())).thenApply(r -> {
                    if (r > 0) {
                        return Attempt.granted(new Grant(name, permitId, tokens.incrementAndGet(), leaseMillis,
                                watchdog, sentAt, base + ":leases"));
                    }
                    // -r: the time until the earliest lease ends (at most the re-check), on the server's clock
                    return Attempt.busy(TimeUnit.MILLISECONDS.toNanos(1 - r));
                });
    }

    @Override
    public CompletableFuture<Boolean> release(String name, String permitId) {
        String base = base(name);
        return executor.<Long>run(PermitSemaphoreScripts.RELEASE, ScriptOutputType.INTEGER,
                new String[] {base + ":leases", channel(base)}, permitId).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        return executor.<Long>run(PermitSemaphoreScripts.UPDATE_LEASE, ScriptOutputType.INTEGER,
                new String[] {base(name) + ":leases"}, permitId, Long.toString(leaseMillis)).thenApply(r -> r == 1L);
    }

    @Override
    public boolean renewsPermits() {
        return true;
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        // one script per lease length and 512 permits (and per slot on a cluster): ARGV carries one lease
        Map<Long, List<Grant>> byLease = new LinkedHashMap<>();
        for (Grant g : grants) {
            byLease.computeIfAbsent(g.leaseMillis(), l -> new ArrayList<>()).add(g);
        }
        List<CompletableFuture<Set<Grant>>> rounds = new ArrayList<>();
        for (Map.Entry<Long, List<Grant>> e : byLease.entrySet()) {
            for (List<Grant> batch : RenewBatches.split(e.getValue(), RENEW_BATCH, executor.cluster(),
                    g -> g.backendState(String.class))) {
                rounds.add(renewBatch(e.getKey(), batch));
            }
        }
        return RedisSyncLockOps.allLost(rounds);
    }

    private CompletableFuture<Set<Grant>> renewBatch(long leaseMillis, List<Grant> batch) {
        int n = batch.size();
        String[] keys = new String[n];
        String[] args = new String[n + 1];
        args[0] = Long.toString(leaseMillis);
        for (int i = 0; i < n; i++) {
            keys[i] = batch.get(i).backendState(String.class);
            args[i + 1] = batch.get(i).ownerId();
        }
        return executor.<List<Object>>run(PermitSemaphoreScripts.RENEW, ScriptOutputType.MULTI, keys, args)
                .thenApply(reply -> RenewBatches.lost(reply, batch));
    }
}
