package io.latchkey.core;

/**
 * The counted primitives, defined once: the engine keys its waiting queues by them, and backends that keep all three
 * in one store name them by {@link #label()} (the file backend's state files ({@code lk-<hash>.semaphore},
 * {@code .permits}, {@code .latch}) and the SQL backend's {@code kind} column). A
 * semaphore, a permit-expirable semaphore and a latch of one name are independent of each other and of the lock of
 * that name.
 */
public enum CountKind {
    /** A semaphore: the number of available permits. */
    SEMAPHORE("semaphore"),
    /** A permit-expirable semaphore: the total number of permits and one lease per held permit. */
    PERMITS("permits"),
    /** A count-down latch: its count while armed. */
    LATCH("latch");

    private final String label;

    CountKind(String label) {
        this.label = label;
    }

    /** {@return the kind as stores write it: {@code "semaphore"}, {@code "permits"} or {@code "latch"}} */
    public String label() {
        return label;
    }

    /**
     * The kind a store wrote.
     *
     * @param label {@code "semaphore"}, {@code "permits"} or {@code "latch"}
     * @return its kind, or {@code null} for any other text
     */
    public static CountKind ofLabel(String label) {
        for (CountKind k : values()) {
            if (k.label.equals(label)) {
                return k;
            }
        }
        return null;
    }
}
