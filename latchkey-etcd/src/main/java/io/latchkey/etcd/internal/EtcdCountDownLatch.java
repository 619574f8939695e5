package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import io.etcd.jetcd.options.WatchOption;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Arguments;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link DistributedCountDownLatch} on etcd: one key per latch whose value is the count, changed only by
 * transactions that compare the key's mod revision with the one just read (compare-and-set, so concurrent
 * count-downs are never lost). The count-down that reaches zero deletes the key: an open latch leaves nothing on the
 * server, and a missing key counts as zero. Waiters read the key and watch it from the revision of that read on, so
 * a change between read and watch is never missed; every change wakes them to read again, and a re-check every
 * {@link #RECHECK_MILLIS} is the fallback for a lost watch. The key has no lease: an armed latch stays armed however
 * long its clients are gone, like Redisson's and Curator's. Calls block the calling thread (the operation timeout
 * bounds each round trip); {@code await} honours interruption, with the interrupt flag cleared as it throws.
 */
public final class EtcdCountDownLatch implements DistributedCountDownLatch {

    static final long RECHECK_MILLIS = 10_000;

    private final EtcdSession session;
    private final String name;
    private final String key;

    /** @param key the latch's key ({@code latchkey/[<namespace>/]latches/<escaped name>}) */
    public EtcdCountDownLatch(EtcdSession session, String name, String key) {
        this.session = session;
        this.name = name;
        this.key = key;
    }

    @Override
    public String name() {
        return name;
    }

    /** Puts the count if the key is absent (the latch open): one transaction. */
    @Override
    public boolean trySetCount(long count) {
        Arguments.positive("count", count);
        TxnResponse r = sync(session.client().getKVClient().txn()
                .If(new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.version(0)))
                .Then(Op.put(bytes(key), bytes(Long.toString(count)), PutOption.DEFAULT))
                .commit(), "arm latch " + name);
        return r.isSucceeded();
    }

    /** Read, then a compare-and-set (delete at zero); again if another count-down came in between. */
    @Override
    public void countDown() {
        while (true) {
            GetResponse r = sync(session.client().getKVClient().get(bytes(key)), "read latch " + name);
            if (r.getKvs().isEmpty()) {
                return;
            }
            KeyValue kv = r.getKvs().get(0);
            long count = parse(kv);
            Op write = count <= 1 ? Op.delete(bytes(key), DeleteOption.DEFAULT)
                    : Op.put(bytes(key), bytes(Long.toString(count - 1)), PutOption.DEFAULT);
            TxnResponse t = sync(session.client().getKVClient().txn()
                    .If(new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.modRevision(kv.getModRevision())))
                    .Then(write).commit(), "count down latch " + name);
            if (t.isSucceeded()) {
                return;
            }
        }
    }

    @Override
    public long getCount() {
        GetResponse r = sync(session.client().getKVClient().get(bytes(key)), "read latch " + name);
        return r.getKvs().isEmpty() ? 0 : parse(r.getKvs().get(0));
    }

    @Override
    public void await() throws InterruptedException {
        awaitUntil(Long.MAX_VALUE);
    }

    @Override
    public boolean await(Duration timeout) throws InterruptedException {
        Objects.requireNonNull(timeout, "timeout");
        return awaitUntil(Arguments.waitDeadline(timeout));
    }

    private boolean awaitUntil(long deadlineNanos) throws InterruptedException {
        if (Thread.interrupted()) {
            throw new InterruptedException("waiting for latch " + name);
        }
        while (true) {
            GetResponse r;
            try {
                r = session.bounded(session.client().getKVClient().get(bytes(key)), "read latch " + name).get();
            } catch (ExecutionException e) {
                throw session.unavailable("read latch " + name, e.getCause());
            }
            if (r.getKvs().isEmpty() || parse(r.getKvs().get(0)) <= 0) {
                return true;
            }
            long remaining = deadlineNanos == AcquireRequest.NO_DEADLINE ? Long.MAX_VALUE : deadlineNanos - System.nanoTime();
            if (remaining <= 0) {
                return false;
            }
            CompletableFuture<Void> changed = new CompletableFuture<>();
            Watch.Watcher watcher = session.client().getWatchClient().watch(bytes(key),
                    WatchOption.builder().withRevision(r.getHeader().getRevision() + 1).build(),
                    Watch.listener(response -> changed.complete(null), error -> changed.complete(null)));
            try {
                changed.get(Math.min(remaining, TimeUnit.MILLISECONDS.toNanos(RECHECK_MILLIS)),
                        TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // re-check (or give up at the deadline, after one more read)
            } catch (ExecutionException e) {
                // never completed exceptionally
            } finally {
                watcher.close();
            }
        }
    }

    private static long parse(KeyValue kv) {
        try {
            return Long.parseLong(EtcdKeys.string(kv.getValue()).trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Waits for one bounded call; an interrupt keeps the flag set and fails the call. */
    private <T> T sync(CompletableFuture<T> call, String operation) {
        try {
            return session.bounded(call, operation).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("interrupted during '" + operation + "'", e);
        } catch (ExecutionException e) {
            throw session.unavailable(operation, e.getCause());
        }
    }
}
