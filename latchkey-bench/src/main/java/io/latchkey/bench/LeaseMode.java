package io.latchkey.bench;

/**
 * How a benchmarked lock is held: renewed by the client's watchdog, or with a fixed lease that expires alone; or not
 * leased at all (a counting semaphore's permits and a latch's count belong to nobody).
 */
public enum LeaseMode {
    WATCHDOG("watchdog"),
    FIXED("fixed lease"),
    NONE("no lease");

    private final String label;

    LeaseMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
