package io.latchkey.redis;

import io.latchkey.core.Arguments;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.core.AcquireRequest;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;

/**
 * A {@link PermitExpirableSemaphore} on Redis. Keys share the hash tag of {@link SyncKeys#base}:
 * {@code …:permits:total} (the permits in total, leased ones included; absent until set) and
 * {@code …:permits:leases} (a sorted set of leased permit ids scored by their expiry in server time), so a
 * permit's lease runs out on the server's clock alone, whatever happens to its holder.
 *
 * <p><b>Permit ids</b> are random (128 bits), chosen by the acquiring client; {@link #release(String)} and
 * {@link #updateLease} act only on a live lease of that id, so a holder whose lease ran out cannot free or
 * extend the permit someone else took meanwhile.
 *
 * <p><b>Waiting.</b> A waiter subscribes to {@code latchkey_permits__channel:<base>}: a release, added permits or a
 * first {@code trySetPermits} wake it; otherwise it checks again when the earliest lease runs out (the script
 * tells it when) or at the bounded re-check, whichever is sooner. An interrupted acquire throws
 * {@link InterruptedException} and holds no permit (one granted in the race is released).
 *
 * <p><b>Watchdog permits.</b> {@link #acquire()} and {@link #tryAcquire(Duration)} take a permit with a lease of
 * {@code watchdogTimeout} that the client's {@link PermitRenewer} extends every {@code watchdogTimeout}/3 until it
 * is released or given a fixed lease by {@link #updateLease}.
 */
final class RedisPermitExpirableSemaphore implements PermitExpirableSemaphore {

    private final String name;
    private final String totalKey;
    private final String leasesKey;
    private final String channel;
    private final ScriptExecutor executor;
    private final UnlockSubscriptions subscriptions;
    private final ScheduledExecutorService scheduler;
    private final SyncWaits waits;
    private final long recheckMillis;
    private final PermitRenewer renewer;

    RedisPermitExpirableSemaphore(String namespace, String name, ScriptExecutor executor,
                                  UnlockSubscriptions subscriptions, ScheduledExecutorService scheduler,
                                  SyncWaits waits, long recheckMillis, PermitRenewer renewer) {
        this.name = name;
        String base = SyncKeys.base(namespace, name, "permits");
        this.totalKey = base + ":total";
        this.leasesKey = base + ":leases";
        this.channel = "latchkey_permits__channel:" + base;
        this.executor = executor;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        this.waits = waits;
        this.recheckMillis = recheckMillis;
        this.renewer = renewer;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String acquire(Duration leaseTime) throws InterruptedException {
        return take(Arguments.leaseMillis(leaseTime), AcquireRequest.NO_DEADLINE);
    }

    @Override
    public Optional<String> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long lease = Arguments.leaseMillis(leaseTime);
        return Optional.ofNullable(take(lease, Arguments.waitDeadline(waitTime)));
    }

    /** {@inheritDoc} Renewed by {@link PermitRenewer}, with a lease of {@code watchdogTimeout}. */
    @Override
    public String acquire() throws InterruptedException {
        return renewed(take(renewer.leaseMillis(), AcquireRequest.NO_DEADLINE));
    }

    @Override
    public Optional<String> tryAcquire(Duration waitTime) throws InterruptedException {
        long deadline = Arguments.waitDeadline(waitTime);
        return Optional.ofNullable(renewed(take(renewer.leaseMillis(), deadline)));
    }

    private String renewed(String permitId) {
        if (permitId != null) {
            renewer.add(permitId, leasesKey);
        }
        return permitId;
    }

    /** Whether the client's watchdog renews this permit; for tests. */
    boolean isRenewed(String permitId) {
        return renewer.isRenewed(permitId);
    }

    private String take(long leaseMillis, long deadline) throws InterruptedException {
        waits.checkOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        String id = UUID.randomUUID().toString().replace("-", "");
        String lease = Long.toString(leaseMillis);
        String[] keys = {totalKey, leasesKey};
        // One plain attempt first: most acquires find a permit, and then the waiting machinery is not worth
        // building. A refusal starts it, and it attempts again at once.
        CompletableFuture<Long> first = executor.run(PermitSemaphoreScripts.ACQUIRE, ScriptOutputType.INTEGER, keys,
                id, lease, Long.toString(recheckMillis));
        try {
            if (waits.getInterruptibly(first, "acquire") > 0) {
                return id;
            }
        } catch (InterruptedException e) {
            // The attempt may still win: then the permit goes straight back, so an interrupted caller holds nothing.
            first.thenAccept(r -> {
                if (r > 0) {
                    executor.run(PermitSemaphoreScripts.RELEASE, ScriptOutputType.INTEGER,
                            new String[] {leasesKey, channel}, id);
                }
            });
            throw e;
        }
        if (deadline != AcquireRequest.NO_DEADLINE && System.nanoTime() - deadline >= 0) {
            return null;
        }
        return waits.await(name, deadline, request -> new WaitingAcquire(subscriptions, scheduler, request, channel,
                willWait -> executor.run(PermitSemaphoreScripts.ACQUIRE, ScriptOutputType.INTEGER, keys, id, lease,
                        Long.toString(recheckMillis)),
                null, recheckMillis, null).start(),
                // on the thread that answered (maybe Lettuce's): no blocking there
                won -> executor.run(PermitSemaphoreScripts.RELEASE, ScriptOutputType.INTEGER,
                        new String[] {leasesKey, channel}, id)) != null ? id : null;
    }

    @Override
    public boolean release(String permitId) {
        Objects.requireNonNull(permitId, "permitId");
        waits.checkOpen();
        renewer.remove(permitId, leasesKey);
        Long r = waits.get(executor.run(PermitSemaphoreScripts.RELEASE, ScriptOutputType.INTEGER,
                new String[] {leasesKey, channel}, permitId), "release");
        return r == 1L;
    }

    @Override
    public boolean updateLease(String permitId, Duration leaseTime) {
        Objects.requireNonNull(permitId, "permitId");
        long lease = Arguments.leaseMillis(leaseTime);
        waits.checkOpen();
        renewer.remove(permitId, leasesKey); // a fixed lease from now on
        Long r = waits.get(executor.run(PermitSemaphoreScripts.UPDATE_LEASE, ScriptOutputType.INTEGER,
                new String[] {leasesKey}, permitId, Long.toString(lease)), "updateLease");
        return r == 1L;
    }

    @Override
    public int availablePermits() {
        waits.checkOpen();
        Long r = waits.get(executor.run(PermitSemaphoreScripts.AVAILABLE, ScriptOutputType.INTEGER,
                new String[] {totalKey, leasesKey}), "availablePermits");
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, r));
    }

    @Override
    public boolean trySetPermits(int permits) {
        Arguments.notNegative("permits", permits);
        waits.checkOpen();
        Long r = waits.get(executor.run(SemaphoreScripts.TRY_SET, ScriptOutputType.INTEGER,
                new String[] {totalKey, channel}, Integer.toString(permits)), "trySetPermits");
        return r == 1L;
    }

    @Override
    public void addPermits(int permits) {
        waits.checkOpen();
        waits.get(executor.run(SemaphoreScripts.ADD, ScriptOutputType.INTEGER, new String[] {totalKey, channel},
                Integer.toString(permits)), "addPermits");
    }

    @Override
    public String toString() {
        return "PermitExpirableSemaphore{name='" + name + "', backend=redis}";
    }
}
