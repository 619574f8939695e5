package io.latchkey.bench;

/** One measured unit of work on one thread, such as a lock followed by an unlock. */
@FunctionalInterface
public interface Cycle {

    void run() throws Exception;

    /** Gives each of a run's threads its own cycle, so uncontended rows can use one lock name per thread. */
    @FunctionalInterface
    interface PerThread {
        Cycle forThread(int threadIndex);
    }
}
