package io.latchkey.bench;

/** How a benchmarked lock is held: renewed by the client's watchdog, or with a fixed lease that expires alone. */
public enum LeaseMode {
    WATCHDOG("watchdog"),
    FIXED("fixed lease");

    private final String label;

    LeaseMode(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
