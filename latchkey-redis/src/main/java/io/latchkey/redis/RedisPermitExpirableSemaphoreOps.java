package io.latchkey.redis;

import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.Grant;
import io.lettuce.core.ScriptOutputType;
import java.util.Collection;
import java.util.List;
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
        return executor.grouped(PermitSemaphoreScripts.ACQUIRE, new String[] {base + ":total", base + ":leases"},
                permitId, Long.toString(leaseMillis), Long.toString(recheckMillis())).thenApply(r -> {
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
        return executor.grouped(PermitSemaphoreScripts.RELEASE, new String[] {base + ":leases", channel(base)},
                permitId).thenApply(r -> r == 1L);
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

    /** A sorted set's member renewed as a read hold is ({@link ReadWriteLockScripts#RENEW_READ}). */
    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return RedisSyncLockOps.renew(executor, ReadWriteLockScripts.RENEW_READ, grants,
                g -> g.backendState(String.class), g -> List.of(g.ownerId()));
    }
}
