package io.latchkey.core;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.PermitExpirableSemaphore;
import java.util.Set;
import java.util.UUID;

/**
 * The base of every backend's {@link LockClient}: the lock engine. A backend supplies the remote half of each
 * primitive ({@link RemoteLockOps}) and its capabilities; this class supplies everything local — argument
 * checks, owner ids, reentrancy, leases and loss signals, the batched watchdog, one remote waiter per name, the
 * synchronous, interruptible and asynchronous forms of every call.
 *
 * <p>Subclasses override the {@code …Ops()} factory of each primitive they support and list it in
 * {@link #capabilities()}; the others throw {@link UnsupportedOperationException} naming the backend.
 */
public abstract class AbstractLockClient implements LockClient {

    private final String backendName;
    private final ClientOptions options;
    private final TimeSource time;
    private final String clientId = UUID.randomUUID().toString();

    /**
     * @param backendName the backend's name in messages and thread names, such as {@code "redis"}
     */
    protected AbstractLockClient(String backendName, ClientOptions options, TimeSource time) {
        this.backendName = backendName;
        this.options = options;
        this.time = time;
    }

    /** The remote half of {@link #lock(String)}. Called once, lazily. */
    protected abstract RemoteLockOps lockOps();

    /** The remote half of {@link #fairLock(String)}; unsupported unless overridden. */
    protected RemoteLockOps fairLockOps() {
        throw unsupported("fairLock");
    }

    /** Releases the backend's connections; called once by {@link #close()} after the engine stopped. */
    protected abstract void closeBackend();

    /** The exception for a primitive this backend does not offer. */
    protected final UnsupportedOperationException unsupported(String primitive) {
        return new UnsupportedOperationException(
                String.format("the %s backend does not support %s (capabilities: %s)", backendName, primitive,
                        capabilities()));
    }

    public final String backendName() {
        return backendName;
    }

    public final ClientOptions options() {
        return options;
    }

    public final TimeSource time() {
        return time;
    }

    @Override
    public final String clientId() {
        return clientId;
    }

    @Override
    public DistributedLock lock(String name) {
        throw new UnsupportedOperationException("TODO: engine");
    }

    @Override
    public DistributedLock fairLock(String name) {
        throw unsupported("fairLock");
    }

    @Override
    public DistributedReadWriteLock readWriteLock(String name) {
        throw unsupported("readWriteLock");
    }

    @Override
    public DistributedSemaphore semaphore(String name) {
        throw unsupported("semaphore");
    }

    @Override
    public PermitExpirableSemaphore permitExpirableSemaphore(String name) {
        throw unsupported("permitExpirableSemaphore");
    }

    @Override
    public DistributedCountDownLatch countDownLatch(String name) {
        throw unsupported("countDownLatch");
    }

    @Override
    public abstract Set<Capability> capabilities();

    @Override
    public void close() {
        closeBackend();
    }
}
