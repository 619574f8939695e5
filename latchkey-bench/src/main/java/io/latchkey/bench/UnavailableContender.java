package io.latchkey.bench;

/**
 * Stands in for a contender whose client could not be created (a backend still missing, a refused connection), so
 * that the other side's rows are still measured and the table shows why this side has none.
 */
public final class UnavailableContender implements Contender {

    private final String name;
    private final RuntimeException cause;

    public UnavailableContender(String name, RuntimeException cause) {
        this.name = name;
        this.cause = cause;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String setup() {
        return "could not be created: " + cause;
    }

    @Override
    public Cycle.PerThread cycles(Scenario scenario, String runId) {
        return threadIndex -> () -> {
            throw cause;
        };
    }

    @Override
    public void close() {
    }
}
