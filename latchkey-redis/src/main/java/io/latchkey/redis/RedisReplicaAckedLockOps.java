package io.latchkey.redis;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import java.util.concurrent.CompletableFuture;

/**
 * A lock's remote operations with replica acknowledgement (see {@link RedisOptions}): after each grant,
 * {@code WAIT n timeout} on the connection that wrote it; too few acknowledgements release the grant and fail
 * the attempt with {@link LockUnavailableException}.
 *
 * <p>{@code WAIT} is sent only after a grant rather than pipelined behind every attempt: pipelined, each attempt
 * that finds the lock busy would also block the shared connection for up to the timeout whenever a replica lags,
 * to save one round trip on the grant. Hand-off is declined, so that every grant passes through here.
 */
final class RedisReplicaAckedLockOps extends ForwardingLockOps {

    private final ScriptExecutor executor;
    private final int replicas;
    private final long timeoutMillis;

    private RedisReplicaAckedLockOps(RemoteLockOps delegate, ScriptExecutor executor, RedisOptions options) {
        super(delegate);
        this.executor = executor;
        this.replicas = options.replicaAcks();
        this.timeoutMillis = options.replicaAckTimeout().toMillis();
    }

    /** {@code ops} itself when acknowledgement is off, otherwise {@code ops} with it. */
    static RemoteLockOps wrap(RemoteLockOps ops, ScriptExecutor executor, RedisOptions options) {
        return options.replicaAcks() == 0 ? ops : new RedisReplicaAckedLockOps(ops, executor, options);
    }

    /** The delegate's attempt; a grant only once enough replicas acknowledged it. */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        return delegate.tryAcquire(request, entry).thenCompose(a -> a.isGranted()
                ? acknowledged(a.grant()).thenApply(Attempt::granted) : CompletableFuture.completedFuture(a));
    }

    private CompletableFuture<Grant> acknowledged(Grant grant) {
        return executor.<Long>call(() -> executor.commands().waitForReplication(replicas, timeoutMillis), "WAIT")
                .handle((acked, error) -> {
                    if (error == null && acked != null && acked >= replicas) {
                        return CompletableFuture.completedFuture(grant);
                    }
                    RuntimeException failure = error != null ? executor.errors().map(error, "WAIT")
                            : new LockUnavailableException(String.format(
                                    "redis at %s: only %d of %d replicas acknowledged the grant of lock '%s' within "
                                            + "%d ms; it was released again", executor.errors().address(), acked,
                                    replicas, grant.name(), timeoutMillis));
                    // Give the grant back before failing, so that the caller's failure leaves no lock behind.
                    return delegate.release(grant).handle((released, releaseError) -> {
                        if (releaseError != null) {
                            failure.addSuppressed(releaseError);
                        }
                        return CompletableFuture.<Grant>failedFuture(failure);
                    }).thenCompose(f -> f);
                })
                .thenCompose(f -> f);
    }

    @Override
    public boolean supportsHandOff() {
        return false;
    }
}
