package io.latchkey.file.internal;

/**
 * The lock kinds of the file backend. All share one file per name: a plain, a fair and a read-write lock of one name
 * exclude each other (as on {@code mem://}).
 */
public enum LockKind {
    /** The plain lock; the engine may pass it between this client's threads without freeing it. */
    LOCK("lock", false, false, true),
    /** FIFO across processes through tickets in the lock file; no local hand-off (it would overtake). */
    FAIR("fair-lock", false, true, false),
    /** The read half of a read-write lock: a shared OS lock. */
    READ("read-lock", true, false, false),
    /** The write half: an exclusive OS lock; no hand-off (its holder may also hold the read lock: downgrade). */
    WRITE("write-lock", false, false, false);

    /** The kind as {@code inspect} and the lock file show it. */
    final String label;
    final boolean shared;
    final boolean fair;
    final boolean handOff;

    LockKind(String label, boolean shared, boolean fair, boolean handOff) {
        this.label = label;
        this.shared = shared;
        this.fair = fair;
        this.handOff = handOff;
    }
}
