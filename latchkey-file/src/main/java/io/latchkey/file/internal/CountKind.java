package io.latchkey.file.internal;

/**
 * The counted primitives of the file backend, each with its own state file per name ({@link FileNames#countFile}):
 * a semaphore, a permit-expirable semaphore and a latch of one name are independent of each other and of the lock
 * of that name.
 */
public enum CountKind {
    /** A semaphore: the number of available permits. */
    SEMAPHORE("semaphore", ".semaphore"),
    /** A permit-expirable semaphore: the total number of permits and one lease per held permit. */
    PERMITS("permits", ".permits"),
    /** A count-down latch: its count while armed (the file is deleted when the count reaches zero). */
    LATCH("latch", ".latch");

    /** The kind as the state file names it. */
    final String label;
    /** The file name's suffix. */
    final String suffix;

    CountKind(String label, String suffix) {
        this.label = label;
        this.suffix = suffix;
    }

    static CountKind ofLabel(String label) {
        for (CountKind k : values()) {
            if (k.label.equals(label)) {
                return k;
            }
        }
        return null;
    }
}
