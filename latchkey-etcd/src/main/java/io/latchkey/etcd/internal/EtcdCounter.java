package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.PutOption;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Compare-and-set on one key holding a decimal number: read, decide, then a transaction that writes only if the key's
 * mod revision (or its absence) is still the one read; again from the read when another writer came in between, so
 * concurrent updates are never lost. Nothing waits here: a retry is another client's progress.
 */
final class EtcdCounter {

    /** What to do with the value read: write {@code value} (delete if {@code null}) unless {@code !write}. */
    record Change<R>(boolean write, Long value, R result) {
        static <R> Change<R> none(R result) {
            return new Change<>(false, null, result);
        }

        static <R> Change<R> put(long value, R result) {
            return new Change<>(true, value, result);
        }

        static <R> Change<R> delete(R result) {
            return new Change<>(true, null, result);
        }
    }

    private final EtcdSession session;

    EtcdCounter(EtcdSession session) {
        this.session = session;
    }

    /** The number under {@code key}, or {@code null} when it is absent. */
    CompletableFuture<Long> read(String key) {
        return session.bounded(session.client().getKVClient().get(bytes(key)), "read " + key)
                .thenApply(r -> r.getKvs().isEmpty() ? null : parse(r.getKvs().get(0)));
    }

    /** Puts {@code value} if {@code key} is absent; completes with whether it did. */
    CompletableFuture<Boolean> putIfAbsent(String key, long value, String operation) {
        return session.bounded(session.client().getKVClient().txn()
                .If(unchanged(key, null)).Then(Op.put(bytes(key), bytes(Long.toString(value)), PutOption.DEFAULT))
                .commit(), operation).thenApply(t -> t.isSucceeded());
    }

    /**
     * Applies {@code decide} to the current value ({@code null} if absent) until its write lands unchanged-since-read
     * or it decides not to write; completes with its result.
     */
    <R> CompletableFuture<R> update(String key, String operation, Function<Long, Change<R>> decide) {
        return session.bounded(session.client().getKVClient().get(bytes(key)), "read " + key).thenCompose(r -> {
            KeyValue kv = r.getKvs().isEmpty() ? null : r.getKvs().get(0);
            Change<R> c = decide.apply(kv == null ? null : parse(kv));
            if (!c.write()) {
                return CompletableFuture.completedFuture(c.result());
            }
            Op write = c.value() == null ? Op.delete(bytes(key), DeleteOption.DEFAULT)
                    : Op.put(bytes(key), bytes(Long.toString(c.value())), PutOption.DEFAULT);
            CompletableFuture<TxnResponse> sent = session.client().getKVClient().txn().If(unchanged(key, kv))
                    .Then(write).commit();
            return session.bounded(sent, operation).thenCompose(t -> t.isSucceeded()
                    ? CompletableFuture.completedFuture(c.result()) : update(key, operation, decide));
        });
    }

    /** {@return the condition that {@code key} is still as read: {@code kv}, or absent if {@code null}} */
    static Cmp unchanged(String key, KeyValue kv) {
        return kv == null ? new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.version(0))
                : new Cmp(bytes(key), Cmp.Op.EQUAL, CmpTarget.modRevision(kv.getModRevision()));
    }

    static long parse(KeyValue kv) {
        try {
            return Long.parseLong(EtcdKeys.string(kv.getValue()).trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
