package io.latchkey.core;

import java.util.Objects;

/**
 * The remote halves a backend offers, one per primitive: what a client hands the engine in
 * {@link AbstractLockClient#recipes()}. A primitive left out is unsupported (its factory throws
 * {@link UnsupportedOperationException} naming the backend). Each ops instance is kept for the client's lifetime:
 * the engine keys its per-name state by it.
 *
 * <pre>{@code
 * Recipes.builder()
 *         .lock(new FileLockOps(...))
 *         .readWriteLock(readOps, writeOps)
 *         .semaphore(new FileCountOps(..., CountKind.SEMAPHORE))
 *         .fencedStore(new FileFencedStoreOps(...))
 *         .build();
 * }</pre>
 */
public final class Recipes {
    /** No primitive at all. */
    static final Recipes NONE = builder().build();

    private final RemoteLockOps lock;
    private final RemoteLockOps fairLock;
    private final RemoteLockOps readLock;
    private final RemoteLockOps writeLock;
    private final RemoteCountOps semaphore;
    private final RemoteCountOps permitExpirableSemaphore;
    private final RemoteCountOps countDownLatch;
    private final RemoteFencedStoreOps fencedStore;

    private Recipes(Builder b) {
        this.lock = b.lock;
        this.fairLock = b.fairLock;
        this.readLock = b.readLock;
        this.writeLock = b.writeLock;
        this.semaphore = b.semaphore;
        this.permitExpirableSemaphore = b.permitExpirableSemaphore;
        this.countDownLatch = b.countDownLatch;
        this.fencedStore = b.fencedStore;
    }

    /** {@return a builder with no primitive} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return a builder holding these recipes, for a test that wraps one of them} */
    Builder toBuilder() {
        Builder b = new Builder();
        b.lock = lock;
        b.fairLock = fairLock;
        b.readLock = readLock;
        b.writeLock = writeLock;
        b.semaphore = semaphore;
        b.permitExpirableSemaphore = permitExpirableSemaphore;
        b.countDownLatch = countDownLatch;
        b.fencedStore = fencedStore;
        return b;
    }

    RemoteLockOps lock() {
        return lock;
    }

    RemoteLockOps fairLock() {
        return fairLock;
    }

    RemoteLockOps readLock() {
        return readLock;
    }

    RemoteLockOps writeLock() {
        return writeLock;
    }

    RemoteCountOps semaphore() {
        return semaphore;
    }

    RemoteCountOps permitExpirableSemaphore() {
        return permitExpirableSemaphore;
    }

    RemoteCountOps countDownLatch() {
        return countDownLatch;
    }

    RemoteFencedStoreOps fencedStore() {
        return fencedStore;
    }

    /** Collects the remote halves; each setter may be called once. */
    public static final class Builder {
        private RemoteLockOps lock;
        private RemoteLockOps fairLock;
        private RemoteLockOps readLock;
        private RemoteLockOps writeLock;
        private RemoteCountOps semaphore;
        private RemoteCountOps permitExpirableSemaphore;
        private RemoteCountOps countDownLatch;
        private RemoteFencedStoreOps fencedStore;

        private Builder() {
        }

        /**
         * The remote half of {@link io.latchkey.LockClient#lock(String)}.
         *
         * @param ops the ops, kept for the client's lifetime
         * @return this builder
         */
        public Builder lock(RemoteLockOps ops) {
            this.lock = Objects.requireNonNull(ops, "ops");
            return this;
        }

        /**
         * The remote half of {@link io.latchkey.LockClient#fairLock(String)}.
         *
         * @param ops the ops, kept for the client's lifetime
         * @return this builder
         */
        public Builder fairLock(RemoteLockOps ops) {
            this.fairLock = Objects.requireNonNull(ops, "ops");
            return this;
        }

        /**
         * The remote halves of {@link io.latchkey.LockClient#readWriteLock(String)}: {@code read.shared()} returns
         * {@code true}, and the backend grants a read request whose owner holds the write lock of the same name at
         * once (downgrade).
         *
         * @param read the read lock's ops
         * @param write the write lock's ops
         * @return this builder
         */
        public Builder readWriteLock(RemoteLockOps read, RemoteLockOps write) {
            this.readLock = Objects.requireNonNull(read, "read");
            this.writeLock = Objects.requireNonNull(write, "write");
            return this;
        }

        /**
         * The remote half of {@link io.latchkey.LockClient#semaphore(String)}: {@link RemoteCountOps#tryTake},
         * {@code give} and the counts.
         *
         * @param ops the ops, kept for the client's lifetime
         * @return this builder
         */
        public Builder semaphore(RemoteCountOps ops) {
            this.semaphore = Objects.requireNonNull(ops, "ops");
            return this;
        }

        /**
         * The remote half of {@link io.latchkey.LockClient#permitExpirableSemaphore(String)}:
         * {@link RemoteCountOps#tryLease}, {@code release}, {@code updateLease}, the counts, and {@code renew} if it
         * {@linkplain RemoteCountOps#renewsPermits() renews permits}.
         *
         * @param ops the ops, kept for the client's lifetime
         * @return this builder
         */
        public Builder permitExpirableSemaphore(RemoteCountOps ops) {
            this.permitExpirableSemaphore = Objects.requireNonNull(ops, "ops");
            return this;
        }

        /**
         * The remote half of {@link io.latchkey.LockClient#countDownLatch(String)}: {@link RemoteCountOps#trySetCount},
         * {@code countDown} and {@code getCount}.
         *
         * @param ops the ops, kept for the client's lifetime
         * @return this builder
         */
        public Builder countDownLatch(RemoteCountOps ops) {
            this.countDownLatch = Objects.requireNonNull(ops, "ops");
            return this;
        }

        /**
         * The remote half of {@link io.latchkey.LockClient#fencedStore(String)}: a read, and a write applied only if
         * the lock's current hold has the writer's fencing token, in one atomic server step.
         *
         * @param ops the ops, kept for the client's lifetime
         * @return this builder
         */
        public Builder fencedStore(RemoteFencedStoreOps ops) {
            this.fencedStore = Objects.requireNonNull(ops, "ops");
            return this;
        }

        /** {@return the recipes collected so far} */
        public Recipes build() {
            return new Recipes(this);
        }
    }
}
