package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Txn;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AnsweredTakes;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RetriedRemoval;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the etcd semaphore: one key per semaphore ({@code latchkey/[<namespace>/]semaphores/<escaped
 * name>}) holding the available permits, changed only by compare-and-set on its mod revision; every change is a watch
 * event that wakes waiters ({@link EtcdSession#subscribe}). The key has no lease: permits are unowned, so a crashed
 * holder's permits stay taken (as on every backend), and a semaphore that was set stays set.
 *
 * <h2>A take whose answer is lost</h2>
 * A take may commit on the server while its answer never arrives; nobody would return those permits. So the take's
 * transaction also writes a record, {@code latchkey/[<namespace>/]semaphore-takes/<escaped name>/<client id>:<n>},
 * holding the permits. Once the answer arrives, the next transaction this client commits on the semaphore deletes it
 * (no extra round trip). Without an answer, the take is given back if etcd applied it: one transaction puts the count
 * plus the record's permits and deletes the record, only if neither changed since read — so at most once, and only if
 * it happened. It is retried ({@link RetriedRemoval}) until etcd answers or the client closes, and once more when the
 * take's late answer arrives (a take still in flight when the first give-back looked). The caller still sees the
 * failure. A client that dies holding permits leaves their records behind.
 */
public final class EtcdSemaphoreOps implements RemoteCountOps {
    private static final Logger log = LoggerFactory.getLogger(EtcdSemaphoreOps.class);

    /** The most record deletes one transaction carries; the rest wait for the next one. */
    static final int DELETES_PER_TXN = 64;

    private final EtcdSession session;
    private final Function<String, String> keyOf;
    private final Function<String, String> takesOf;
    private final String takeIds;
    private final AtomicLong takes = new AtomicLong();
    /** Per semaphore name: the record keys of takes whose answer arrived, for the next transaction to delete. */
    private final AnsweredTakes answered = new AnsweredTakes();
    private final EtcdCounter counter;

    /** Maps a name to its key ({@code keyOf}) and its take records' prefix ({@code takesOf}, ending in {@code /}). */
    public EtcdSemaphoreOps(EtcdSession session, Function<String, String> keyOf, Function<String, String> takesOf,
                            String clientId) {
        this.session = session;
        this.keyOf = keyOf;
        this.takesOf = takesOf;
        this.takeIds = clientId + ":";
        this.counter = new EtcdCounter(session);
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return session.subscribe(keyOf.apply(name), false, changed);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return counter.read(keyOf.apply(name)).thenApply(v -> v == null ? 0 : clamp(v));
    }

    /** An int count, saturated: the count is a 64-bit number on the server, as on every backend. */
    static int clamp(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return counter.putIfAbsent(keyOf.apply(name), permits, "set permits of semaphore " + name);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return update(name, "add permits to semaphore " + name, null,
                v -> EtcdCounter.Change.put((v == null ? 0 : v) + delta, (Void) null));
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        String record = takesOf.apply(name) + takeIds + takes.incrementAndGet();
        Op recordTake = Op.put(bytes(record), bytes(Integer.toString(permits)), PutOption.DEFAULT);
        return update(name, "take permits of semaphore " + name, new TakeRecord(record, recordTake, name),
                v -> v == null || v < permits ? EtcdCounter.Change.none(false)
                        : EtcdCounter.Change.put(v - permits, true));
    }

    /** A take's record and its put, sent with the take. */
    private record TakeRecord(String key, Op put, String name) {
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return addPermits(name, permits);
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return update(name, "drain semaphore " + name, null,
                v -> v == null || v <= 0 ? EtcdCounter.Change.none(0) : EtcdCounter.Change.put(0, clamp(v)));
    }

    /**
     * As {@link EtcdCounter#update} on {@code name}'s count, but the write also deletes the records of answered
     * takes and writes {@code take}'s record if any; a take whose transaction gets no answer is given back.
     */
    private <R> CompletableFuture<R> update(String name, String operation, TakeRecord take,
                                            Function<Long, EtcdCounter.Change<R>> decide) {
        String key = keyOf.apply(name);
        return session.bounded(session.client().getKVClient().get(bytes(key)), "read " + key).thenCompose(r -> {
            KeyValue kv = r.getKvs().isEmpty() ? null : r.getKvs().get(0);
            EtcdCounter.Change<R> c = decide.apply(kv == null ? null : EtcdCounter.parse(kv));
            if (!c.write()) {
                return CompletableFuture.completedFuture(c.result());
            }
            List<String> done = answered.drain(name, DELETES_PER_TXN);
            List<Op> writes = new ArrayList<>(done.size() + 2);
            writes.add(Op.put(bytes(key), bytes(Long.toString(c.value())), PutOption.DEFAULT));
            if (take != null) {
                writes.add(take.put());
            }
            done.forEach(k -> writes.add(Op.delete(bytes(k), DeleteOption.DEFAULT)));
            // A take that finds the count changed reads its own record: should the client's transport send the
            // transaction twice, the second finds the first's record and answers "taken" instead of taking again.
            Txn txn = session.client().getKVClient().txn().If(EtcdCounter.unchanged(key, kv))
                    .Then(writes.toArray(Op[]::new));
            CompletableFuture<TxnResponse> sent = (take == null ? txn
                    : txn.Else(Op.get(bytes(take.key()), GetOption.DEFAULT))).commit();
            return session.bounded(sent, operation).handle((t, e) -> {
                if (e != null) {
                    answered.requeue(name, done); // deleting a record twice does no harm
                    if (take != null) { // bounded: a LockUnavailableException, the answer lost
                        giveBack(take, sent);
                    }
                    return CompletableFuture.<R>failedFuture(e);
                }
                if (!t.isSucceeded()) {
                    answered.requeue(name, done);
                    if (take != null && !t.getGetResponses().isEmpty()
                            && !t.getGetResponses().get(0).getKvs().isEmpty()) {
                        answered.add(name, take.key()); // this take was applied already
                        return CompletableFuture.completedFuture(c.result());
                    }
                    return update(name, operation, take, decide);
                }
                if (take != null) {
                    answered.add(name, take.key());
                }
                return CompletableFuture.completedFuture(c.result());
            }).thenCompose(f -> f);
        });
    }

    /** A take's answer was lost: gives it back in the background, and once more when its late answer arrives. */
    private void giveBack(TakeRecord take, CompletableFuture<TxnResponse> sent) {
        String what = "give-back of take " + take.key() + " (its answer was lost) on " + session.endpoints();
        Supplier<CompletableFuture<Long>> once = () -> session.stranded().removals.now(what,
                retry -> giveBackOnce(take), e -> e instanceof LockUnavailableException, 0L, null);
        once.get().whenComplete((n, e) -> sent.whenComplete((late, ignored) -> once.get()));
    }

    /**
     * One give-back: reads the count and the record, then puts the count plus the record's permits and deletes the
     * record if neither changed since; completes with the permits given back (0: no record).
     */
    CompletableFuture<Long> giveBackOnce(TakeRecord take) {
        String key = keyOf.apply(take.name());
        return session.bounded(session.client().getKVClient().txn()
                .Then(Op.get(bytes(key), GetOption.DEFAULT), Op.get(bytes(take.key()), GetOption.DEFAULT))
                .commit(), "read " + take.key()).thenCompose(r -> {
            List<KeyValue> count = r.getGetResponses().get(0).getKvs();
            List<KeyValue> record = r.getGetResponses().get(1).getKvs();
            if (record.isEmpty()) {
                return CompletableFuture.completedFuture(0L);
            }
            KeyValue rec = record.get(0);
            long permits = EtcdCounter.parse(rec);
            KeyValue kv = count.isEmpty() ? null : count.get(0);
            long value = (kv == null ? 0 : EtcdCounter.parse(kv)) + permits;
            return session.bounded(session.client().getKVClient().txn()
                    .If(EtcdCounter.unchanged(key, kv), EtcdCounter.unchanged(take.key(), rec))
                    .Then(Op.put(bytes(key), bytes(Long.toString(value)), PutOption.DEFAULT),
                            Op.delete(bytes(take.key()), DeleteOption.DEFAULT))
                    .commit(), "give back take " + take.key()).thenCompose(t -> {
                if (!t.isSucceeded()) {
                    return giveBackOnce(take);
                }
                log.info("gave back {} permit(s) of semaphore '{}' taken by an attempt whose answer was lost",
                        permits, take.name());
                return CompletableFuture.completedFuture(permits);
            });
        });
    }

    /** Deletes the records of answered takes in one transaction (best effort, within {@code timeoutMillis}). */
    public void close(long timeoutMillis) {
        List<Op> deletes = new ArrayList<>();
        for (String name : answered.names()) {
            if (deletes.size() < DELETES_PER_TXN) {
                answered.drain(name, DELETES_PER_TXN - deletes.size())
                        .forEach(k -> deletes.add(Op.delete(bytes(k), DeleteOption.DEFAULT)));
            }
        }
        if (deletes.isEmpty()) {
            return;
        }
        try {
            session.client().getKVClient().txn().Then(deletes.toArray(Op[]::new)).commit()
                    .get(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("deleting {} semaphore take record(s) at close failed: {}", deletes.size(), e.toString());
        }
    }
}
