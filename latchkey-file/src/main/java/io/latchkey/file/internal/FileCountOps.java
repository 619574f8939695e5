package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;

/**
 * What the file backend's counted primitives share: one kind of one namespace on the JVM's {@link LockDirectory}.
 * Every operation is one task on the directory's thread: one directory section, one read of the name's state file,
 * at most one write (see {@link CountFiles}); the caller's thread never touches a file. Wake-ups come from the
 * directory's watcher and this JVM's own changes ({@link CountFiles}); a lease end comes with the refused attempt's
 * answer; the engine's re-check every {@value #RECHECK_MILLIS} ms is the fallback.
 */
abstract class FileCountOps implements RemoteCountOps {

    /** The engine's fallback re-check: watch events can be lost (overflow) or late (polling watch services). */
    static final long RECHECK_MILLIS = 1_000;

    /** One read-modify-write of a state file. */
    @FunctionalInterface
    interface Change<T> {
        T apply(CountFiles.Loaded loaded, DirectorySection s) throws java.io.IOException;
    }

    final LockDirectory directory;
    final String namespace;
    final CountKind kind;

    FileCountOps(LockDirectory directory, String namespace, CountKind kind) {
        this.directory = directory;
        this.namespace = namespace;
        this.kind = kind;
    }

    /** Loads {@code name}'s state, applies {@code change}, stores what changed: one task, one section. */
    final <T> CompletableFuture<T> change(String op, String name, Change<T> change) {
        return directory.run(op + " " + kind.label() + " '" + name + "'", (s, after) -> {
            CountFiles.Loaded loaded = directory.counts().load(s, namespace, name, kind);
            T result = change.apply(loaded, s);
            directory.counts().store(s, loaded, after);
            return result;
        });
    }

    /**
     * Subscribes to the name's state file; completes after one read of it, from when on every change is reported:
     * the watcher was watching before.
     */
    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        Subscription sub = directory.counts().subscribe(FileNames.countFile(namespace, name, kind), changed);
        return change("subscribe to", name, (loaded, s) -> sub).whenComplete((ok, e) -> {
            if (e != null) {
                sub.close();
            }
        });
    }

    @Override
    public long recheckMillis() {
        return RECHECK_MILLIS;
    }

    /**
     * Both semaphores' {@code trySetPermits}: sets the count (the permits in total) if the file was never written;
     * a positive count wakes waiters.
     */
    final CompletableFuture<Boolean> setCountOnce(String name, int permits) {
        return change("set permits of", name, (loaded, s) -> {
            if (loaded.record != null) {
                return false;
            }
            loaded.orCreate().count = permits;
            loaded.changed = true;
            loaded.wake = permits > 0;
            return true;
        });
    }

    /** Both semaphores' {@code addPermits}: adds {@code delta} to the count; added permits wake waiters. */
    final CompletableFuture<Void> addToCount(String name, int delta) {
        return change("add permits to", name, (loaded, s) -> {
            loaded.orCreate().count += delta;
            loaded.changed = true;
            loaded.wake = delta > 0;
            return null;
        });
    }

    /** An int count, clamped (a file's count is a long). */
    static int clamp(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "{" + directory.path() + ", namespace='" + namespace + "'}";
    }
}
