package io.latchkey.file.internal;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.ArbitratedLockOps;
import io.latchkey.core.Grant;
import io.latchkey.core.NameArbiter.Waiting;
import io.latchkey.file.internal.LockEntry.FileGrantState;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.spi.LockInfo;
import java.util.Collection;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * The remote half of one lock kind of one client: its namespace and kind, on the JVM's {@link LockDirectory} (its
 * {@link LockArbiter} for the locks). Its holds keep it as their
 * client: its name is recorded with each hold, and {@link #onLost} is how the directory tells it of a revoke.
 */
public final class FileLockOps extends ArbitratedLockOps {

    private final LockDirectory directory;
    private final LockArbiter arbiter;
    final String namespace;
    /** Tells the client that a hold ended without its renewal noticing first (another process force-unlocked it). */
    final BiConsumer<Grant, String> onLost;
    /** The client's name, recorded with each hold (a {@code holder} line of the lock file). */
    final String clientName;

    public FileLockOps(LockDirectory directory, String namespace, Kind kind, BiConsumer<Grant, String> onLost,
                       String clientName) {
        super(kind);
        this.directory = directory;
        this.arbiter = directory.arbiter;
        this.namespace = namespace;
        this.onLost = onLost;
        this.clientName = clientName;
    }

    /** One look at the lock file and this JVM's grants and queue ({@link LockArbiter#attempt}). */
    @Override
    public CompletableFuture<Attempt> tryAcquire(AcquireRequest request, String entry) {
        return directory.thread.submit("acquire", (s, after) -> arbiter.attempt(this, request, s, after));
    }

    /** Changes of the lock file: this JVM's releases, lease ends and withdrawals, and the directory watcher's events. */
    @Override
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return directory.pushes.subscribe(FileNames.lockFile(namespace, name), changed);
    }

    /** Gives up {@code owner}'s entry in the queue of {@code name}; those behind it are told. */
    @Override
    protected CompletableFuture<Void> withdraw(String name, String owner) {
        String file = FileNames.lockFile(namespace, name);
        return directory.thread.submit("withdraw", (s, after) -> {
            LockEntry e = arbiter.entry(file);
            Waiting q = e == null ? null : e.withdraw(owner);
            if (q != null) {
                if (q.ticket() != 0) {
                    directory.files.sync(e, s);
                }
                after.add(() -> directory.pushes.fire(file, null));
            }
            if (e != null) {
                arbiter.removeIfIdle(e);
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> release(Grant grant) {
        String file = FileNames.lockFile(namespace, grant.name());
        return directory.thread.submit("release", (s, after) -> {
            LockEntry e = arbiter.entry(file);
            FileGrantState h = e == null ? null : arbiter.find(e, grant);
            if (h != null) {
                e.remove(h);
                arbiter.forget(e, List.of(h));
            }
            if (e != null) {
                arbiter.settle(e, s, after);
            }
            return h != null;
        });
    }

    @Override
    public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
        return arbiter.renew(namespace, grants);
    }

    @Override
    protected CompletableFuture<Grant> handOver(Grant from, AcquireRequest request) {
        String file = FileNames.lockFile(namespace, from.name());
        return directory.thread.submit("handOff", (s, after) -> {
            LockEntry e = arbiter.entry(file);
            FileGrantState h = e == null ? null : arbiter.find(e, from);
            // a receiver that gave up meanwhile still gets it: the engine gives that grant back. Refusing here
            // would answer "from no longer held", and the engine would report a held lock as lost
            if (h == null || h.shared()) {
                if (e != null) {
                    arbiter.settle(e, s, after);
                }
                return null;
            }
            // The OS lock stays: the lock is never free in between. A receiver's own queue entry is served.
            FileGrantState to = arbiter.newGrant(e, this, request, s);
            e.handOver(h, to);
            arbiter.forget(e, List.of(h));
            directory.files.sync(e, s);
            arbiter.arm(e);
            return to.grant;
        });
    }

    /** Who holds the lock: the first hold, this JVM's from memory, another process's from the lock file. */
    @Override
    public CompletableFuture<LockHolder> holder(String name) {
        String file = FileNames.lockFile(namespace, name);
        return directory.thread.submit("holder", (s, after) -> {
            arbiter.refresh(file, s, after);
            for (LockInfo info : directory.infos(file, null, s)) {
                return new LockHolder(info.owner(), info.clientName(), info.heldSince(), info.remainingLease(),
                        info.fencingToken(), OptionalInt.empty());
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        String file = FileNames.lockFile(namespace, name);
        return directory.thread.submit("isLocked", (s, after) -> {
            LockEntry e = arbiter.refresh(file, s, after);
            if (e != null && (!e.holds().isEmpty() || e.channel != null)) {
                return !e.holds().isEmpty();
            }
            return directory.files.heldElsewhere(file, arbiter.entry(file) != null, s) != null;
        });
    }

    /** This JVM's grants end at once; another process is asked (a revoke line) to end its own at its next renewal. */
    @Override
    public CompletableFuture<Boolean> forceUnlock(String name) {
        String file = FileNames.lockFile(namespace, name);
        return directory.thread.submit("forceUnlock", (s, after) -> {
            LockEntry e = arbiter.refresh(file, s, after);
            boolean held = e != null && !arbiter.clearGrants(e).isEmpty();
            if (held) {
                arbiter.refresh(file, s, after);
            }
            if (e != null && e.channel != null) {
                return held;
            }
            LockFileRecord other = directory.files.heldElsewhere(file, arbiter.entry(file) != null, s);
            if (other != null) {
                directory.files.requestRevoke(file, other);
            }
            return held || other != null;
        });
    }

    @Override
    public String toString() {
        return "FileLockOps{" + directory.path() + ", kind=" + kind + "}";
    }
}
