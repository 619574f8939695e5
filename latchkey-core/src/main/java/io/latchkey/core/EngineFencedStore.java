package io.latchkey.core;

import io.latchkey.FencedStore;
import io.latchkey.Leadership;
import io.latchkey.LockLease;
import io.latchkey.StaleLeaseException;
import io.latchkey.core.internal.LockEngine;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link FencedStore} of every backend ({@link AbstractLockClient#fencedStore}): checks arguments, turns a lease
 * or leadership into the fencing token the server checks, and gives the blocking and asynchronous forms over a
 * backend's {@link RemoteFencedStoreOps}. The blocking forms wait for the server as the engine's other remote calls
 * do: at most the operation timeout, not interruptibly (an interrupt is kept for the caller).
 */
final class EngineFencedStore implements FencedStore {

    private final String backendName;
    private final String lockName;
    private final RemoteFencedStoreOps ops;
    private final LockEngine engine;

    EngineFencedStore(String backendName, String lockName, RemoteFencedStoreOps ops, LockEngine engine) {
        this.backendName = backendName;
        this.lockName = lockName;
        this.ops = ops;
        this.engine = engine;
    }

    @Override
    public String lockName() {
        return lockName;
    }

    /**
     * Checks a store key: 1 to {@value FencedStore#MAX_KEY_LENGTH} characters, no control characters, well-formed
     * UTF-16.
     *
     * @param key the key
     * @return the key
     * @throws IllegalArgumentException with the reason
     */
    static String checkKey(String key) {
        if (key == null) {
            throw new IllegalArgumentException("fenced store key is null");
        }
        if (key.isEmpty()) {
            throw new IllegalArgumentException("fenced store key is empty");
        }
        if (key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException(String.format("fenced store key has %d characters; at most %d",
                    key.length(), MAX_KEY_LENGTH));
        }
        for (int i = 0; i < key.length(); i++) {
            if (Character.isISOControl(key.charAt(i))) {
                throw new IllegalArgumentException(String.format(
                        "fenced store key contains a control character (U+%04X) at index %d", (int) key.charAt(i), i));
            }
        }
        int lone = LockEngine.loneSurrogate(key);
        if (lone >= 0) {
            throw new IllegalArgumentException(String.format(
                    "fenced store key is not well-formed UTF-16: lone surrogate U+%04X at index %d",
                    (int) key.charAt(lone), lone));
        }
        return key;
    }

    private static byte[] checkValue(byte[] value, String what) {
        if (value == null) {
            throw new IllegalArgumentException("fenced store " + what + " is null");
        }
        if (value.length > MAX_VALUE_BYTES) {
            throw new IllegalArgumentException(String.format("fenced store %s has %d bytes; at most %d", what,
                    value.length, MAX_VALUE_BYTES));
        }
        return value.clone();
    }

    private long token(LockLease lease) {
        if (lease == null) {
            throw new IllegalArgumentException("lease is null");
        }
        if (!lockName.equals(lease.lockName())) {
            throw new IllegalArgumentException(String.format(
                    "a lease of lock '%s' cannot write to the fenced store of lock '%s'", lease.lockName(), lockName));
        }
        return lease.fencingToken();
    }

    private long token(Leadership leadership) {
        if (leadership == null) {
            throw new IllegalArgumentException("leadership is null");
        }
        String electionLock = FencedStore.electionLockName(leadership.electionName());
        if (!lockName.equals(electionLock)) {
            throw new IllegalArgumentException(String.format(
                    "a leadership of election '%s' (lock '%s') cannot write to the fenced store of lock '%s'; use "
                            + "client.fencedStore(FencedStore.electionLockName(\"%s\"))",
                    leadership.electionName(), electionLock, lockName, leadership.electionName()));
        }
        return leadership.term();
    }

    @Override
    public CompletableFuture<Optional<byte[]>> getAsync(String key) {
        checkKey(key);
        return ops.get(lockName, key);
    }

    @Override
    public Optional<byte[]> get(String key) {
        return await(getAsync(key), "get", key);
    }

    private CompletableFuture<Boolean> write(long token, FencedWrite w) {
        return ops.write(lockName, token, w).thenApply(outcome -> {
            if (outcome == FencedWrite.Outcome.STALE) {
                throw new StaleLeaseException(lockName, token);
            }
            return outcome == FencedWrite.Outcome.APPLIED;
        });
    }

    private static FencedWrite put(String key, byte[] value) {
        return new FencedWrite(FencedWrite.Kind.PUT, checkKey(key), null, checkValue(value, "value"));
    }

    private static FencedWrite cas(String key, byte[] expected, byte[] value) {
        return new FencedWrite(FencedWrite.Kind.COMPARE_AND_SET, checkKey(key),
                expected == null ? null : checkValue(expected, "expected value"), checkValue(value, "value"));
    }

    private static FencedWrite delete(String key) {
        return new FencedWrite(FencedWrite.Kind.DELETE, checkKey(key), null, null);
    }

    @Override
    public CompletableFuture<Void> putAsync(LockLease lease, String key, byte[] value) {
        long token = token(lease);
        return write(token, put(key, value)).thenApply(b -> null);
    }

    @Override
    public CompletableFuture<Boolean> compareAndSetAsync(LockLease lease, String key, byte[] expected, byte[] value) {
        long token = token(lease);
        return write(token, cas(key, expected, value));
    }

    @Override
    public CompletableFuture<Boolean> deleteAsync(LockLease lease, String key) {
        long token = token(lease);
        return write(token, delete(key));
    }

    @Override
    public void put(LockLease lease, String key, byte[] value) {
        await(putAsync(lease, key, value), "put", key);
    }

    @Override
    public boolean compareAndSet(LockLease lease, String key, byte[] expected, byte[] value) {
        return await(compareAndSetAsync(lease, key, expected, value), "compareAndSet", key);
    }

    @Override
    public boolean delete(LockLease lease, String key) {
        return await(deleteAsync(lease, key), "delete", key);
    }

    @Override
    public void put(Leadership leadership, String key, byte[] value) {
        long token = token(leadership);
        await(write(token, put(key, value)), "put", key);
    }

    @Override
    public boolean compareAndSet(Leadership leadership, String key, byte[] expected, byte[] value) {
        long token = token(leadership);
        return await(write(token, cas(key, expected, value)), "compareAndSet", key);
    }

    @Override
    public boolean delete(Leadership leadership, String key) {
        long token = token(leadership);
        return await(write(token, delete(key)), "delete", key);
    }

    private <T> T await(CompletableFuture<T> future, String operation, String key) {
        return engine.awaitRemote(future, "fenced store " + operation + " of key '" + key + "'", lockName);
    }

    @Override
    public String toString() {
        return "FencedStore{backend=" + backendName + ", lock='" + lockName + "'}";
    }
}
