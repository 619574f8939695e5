package io.latchkey.file.internal;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The remote half of one lock kind of one client: its namespace and kind, on the JVM's {@link LockDirectory} (its
 * {@link LockArbiter} for the locks, its {@link FileInspector} for the operator's calls).
 */
public final class FileLockOps implements RemoteLockOps {

    private final LockDirectory directory;
    private final String namespace;
    private final LockKind kind;
    private final LockEntry.HoldingClient onLost;

    /**
     * @param onLost tells the client that a hold ended without its renewal noticing first (another process
     *        force-unlocked it)
     * @param clientName the client's name, recorded with each hold (a {@code holder} line of the lock file)
     */
    public FileLockOps(LockDirectory directory, String namespace, LockKind kind, BiConsumer<Grant, String> onLost,
                       String clientName) {
        this.directory = directory;
        this.namespace = namespace;
        this.kind = kind;
        this.onLost = new LockEntry.HoldingClient(clientName, onLost);
    }

    @Override
    public boolean singleAttempts() {
        return true;
    }

    /** One look at the lock file and this JVM's grants and queue ({@link LockArbiter#tryAcquire}). */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        return directory.locks().tryAcquire(namespace, kind, request, onLost);
    }

    /** Changes of the lock file: this JVM's releases, lease ends and withdrawals, and the directory watcher's events. */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return CompletableFuture.completedFuture(
                directory.counts().subscribe(FileNames.lockFile(namespace, name), changed));
    }

    @Override
    public CompletableFuture<Void> withdraw(AcquireRequest request, String entry) {
        return directory.locks().withdraw(namespace, request.name(), entry != null ? entry : request.ownerId());
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        return directory.locks().release(namespace, grant);
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return directory.locks().renew(namespace, grants);
    }

    @Override
    public boolean supportsHandOff() {
        return kind.handOff;
    }

    @Override
    public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
        if (!kind.handOff) {
            throw new UnsupportedOperationException("handOff");
        }
        return directory.locks().handOff(namespace, from, request, onLost);
    }

    /** The fair lock: every waiter takes its own ticket in the lock file when it starts waiting (strict FIFO). */
    @Override
    public boolean fair() {
        return kind.fair;
    }

    @Override
    public boolean shared() {
        return kind.shared;
    }

    @Override
    public CompletableFuture<io.latchkey.LockHolder> holder(String name) {
        return directory.inspection().holder(namespace, name);
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return directory.inspection().isLocked(namespace, name);
    }

    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        return directory.inspection().forceUnlock(namespace, name);
    }

    @Override
    public String toString() {
        return "FileLockOps{" + directory.path() + ", kind=" + kind + "}";
    }
}
