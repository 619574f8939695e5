package io.latchkey.redis;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AnsweredTakes;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RetriedRemoval;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the Redis semaphore ({@link RemoteCountOps}): the available permits are one integer key
 * {@code <namespace>{<namespace + name>}:latchkey:semaphore:permits} (absent until {@code trySetPermits} or
 * {@code addPermits} sets it; no TTL, as permits are not owned), changed only by the scripts of
 * {@link SemaphoreScripts}, each one check-and-change step. Releases, added permits and a first
 * {@code trySetPermits} publish on {@code latchkey_semaphore__channel:<base>}, which wakes the engine's waiters of
 * every client. A waiter puts nothing on the server: when permits come back, whichever client's attempt arrives first
 * and fits takes them (like a non-fair {@link java.util.concurrent.Semaphore}).
 *
 * <h2>A take whose answer is lost</h2>
 * An attempt that fails on the operation timeout or a broken connection may have taken the permits on the server
 * all the same; nobody would ever return them. So each take is recorded under an id of its own in the hash
 * {@code <base>:takes} (take id → permits, kept {@value #RECORD_MILLIS} ms), in the same script. When the answer
 * arrives, the record is no longer needed: the next script this client runs on the semaphore (usually the release of
 * those permits, or its next take) deletes it, so a cycle costs no extra round trip and the hash is gone again when
 * the permits come back. When the attempt fails without an answer, the take is given back if the server applied
 * it ({@link SemaphoreScripts#GIVE_BACK}, idempotent: it returns the permits of that id once), tried again through
 * {@link RetriedRemoval} until the server answers or the record's time is over. The caller still sees the failure.
 * A record whose deletion was lost, or that no later script of this client came to delete, ends with its
 * {@code PEXPIRE}.
 */
final class RedisSemaphoreOps extends RedisCountOps {
    private static final Logger log = LoggerFactory.getLogger(RedisSemaphoreOps.class);
    /** How long the server keeps a take's record: the longest a give-back after a lost answer may take. */
    static final long RECORD_MILLIS = 60_000;

    private final String takeIds;
    private final AtomicLong takes = new AtomicLong();
    /** Per semaphore name: the takes whose answer arrived, for the next script on that name to delete. */
    private final AnsweredTakes answered = new AnsweredTakes();
    private final RetriedRemoval giveBacks;

    RedisSemaphoreOps(String namespace, String clientId, ScriptExecutor executor, PubSubChannels channels,
                      long recheckMillis) {
        super("semaphore", namespace, executor, channels, recheckMillis);
        this.takeIds = clientId + ":t";
        this.giveBacks = Withdrawals.retried(executor.scheduler(), log);
    }

    private String permitsKey(String name) {
        return base(name) + ":permits";
    }

    private String[] permitsAndChannel(String name) {
        String base = base(name);
        return new String[] {base + ":permits", channel(base)};
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return executor.<String>call(() -> executor.commands().get(permitsKey(name)), "GET")
                .thenApply(v -> v == null ? 0 : saturate(Long.parseLong(v)));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return executor.<Long>run(SemaphoreScripts.TRY_SET, ScriptOutputType.INTEGER, permitsAndChannel(name),
                Integer.toString(permits)).thenApply(r -> r == 1L);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        String base = base(name);
        List<String> args = new ArrayList<>(List.of(Integer.toString(delta)));
        args.addAll(answered.drain(name, Integer.MAX_VALUE));
        return executor.grouped(SemaphoreScripts.ADD,
                new String[] {base + ":permits", channel(base), base + ":takes"}, args.toArray(String[]::new))
                .thenApply(r -> null);
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        String id = takeIds + takes.incrementAndGet();
        String base = base(name);
        String[] keys = {base + ":permits", base + ":takes"};
        List<String> args = new ArrayList<>(List.of(Integer.toString(permits), Long.toString(recheckMillis()), id,
                Long.toString(RECORD_MILLIS)));
        // The answered takes' records, for the script to delete; drained whatever its fate (a record whose script
        // failed ends with its PEXPIRE).
        args.addAll(answered.drain(name, Integer.MAX_VALUE));
        CompletableFuture<Boolean> taken = executor.grouped(SemaphoreScripts.ACQUIRE, keys,
                args.toArray(String[]::new))
                .thenApply(r -> {
                    if (r > 0) {
                        answered.add(name, id); // the next script on the name deletes its record
                    }
                    return r > 0;
                });
        taken.whenComplete((r, e) -> {
            if (e != null && RedisErrors.unwrap(e) instanceof LockUnavailableException) {
                giveBack(name, id);
            }
        });
        return taken;
    }

    /**
     * The answer of take {@code id} was lost: gives its permits back if the server applied it, tried again until
     * the server answers or the record's time is over (in the background; nobody waits for it).
     */
    CompletableFuture<Long> giveBack(String name, String id) {
        String base = base(name);
        String[] keys = {base + ":permits", base + ":takes", channel(base)};
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RECORD_MILLIS);
        return giveBacks.now("give-back of take " + id + " of semaphore '" + name + "' (its answer was lost)",
                retry -> retry > 0 && System.nanoTime() - until >= 0 ? CompletableFuture.completedFuture(0L)
                        : executor.<Long>run(SemaphoreScripts.GIVE_BACK, ScriptOutputType.INTEGER, keys, id),
                e -> e instanceof LockUnavailableException, 0L, null)
                .whenComplete((n, e) -> {
                    if (n != null && n > 0) {
                        log.info("gave back {} permit(s) of semaphore '{}' taken by an attempt whose answer was lost",
                                n, name);
                    }
                });
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return addPermits(name, permits);
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return executor.<Long>run(SemaphoreScripts.DRAIN, ScriptOutputType.INTEGER, new String[] {permitsKey(name)})
                .thenApply(RedisCountOps::saturate);
    }
}
