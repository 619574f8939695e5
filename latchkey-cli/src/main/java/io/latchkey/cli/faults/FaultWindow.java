package io.latchkey.cli.faults;

/**
 * One injected fault as it happened: when it began and ended, whom it hit, and the window of the history that is
 * judged against it (from its start to the next fault's start, or the end of the run).
 *
 * @param kind the fault
 * @param target the worker it hit, or {@code ""} for a server fault or the baseline
 * @param targetToken the token the target held when the fault began, or -1 if it held none
 * @param start {@code nanoTime} at the fault's start
 * @param end {@code nanoTime} when the fault was undone (resume, heal, server back, failover done)
 * @param windowEnd {@code nanoTime} at which the next window begins
 * @param problem why the verifier could not complete the fault (a server that did not come back), or {@code ""}
 */
record FaultWindow(FaultKind kind, String target, long targetToken, long start, long end, long windowEnd,
                   String problem) {

    FaultWindow(FaultKind kind, String target, long targetToken, long start, long end, long windowEnd) {
        this(kind, target, targetToken, start, end, windowEnd, "");
    }

    boolean contains(long nanos) {
        return nanos - start >= 0 && nanos - windowEnd < 0;
    }

    FaultWindow withWindowEnd(long newEnd) {
        return new FaultWindow(kind, target, targetToken, start, end, newEnd, problem);
    }
}
