package io.latchkey;

/**
 * Callbacks of a long-running candidate started with {@link LeaderElection#start(LeadershipListener)}, in the
 * style of Curator's {@code LeaderLatchListener}: the candidacy campaigns, calls {@link #elected} when it wins,
 * {@link #revoked} when that leadership ends (lost or resigned), and campaigns again until it is closed.
 *
 * <p>Both methods run on the candidacy's own thread, one at a time and in order: {@code elected(l)} happens-before
 * {@code revoked(l)}, which happens-before the next {@code elected}. They should return quickly: while
 * {@code elected} runs, a loss is still signalled through {@link Leadership#isValid()} and
 * {@link Leadership#onRevoked}, but {@code revoked} waits for {@code elected} to return. Start long work on another
 * thread (or wrap it in {@link Leadership#runWhileValid}) and stop it in {@code revoked}. An exception thrown by a
 * callback is logged and the candidacy goes on: after {@code elected} throws, it resigns and campaigns again.
 */
public interface LeadershipListener {

    /**
     * This candidate won; {@code leadership} is valid as this method starts (unless it was lost in between, which
     * {@link Leadership#isValid()} tells). Do not {@linkplain Leadership#close() close} it to keep leading; closing it
     * resigns, after which the candidacy calls {@link #revoked} and campaigns again.
     *
     * @param leadership the new leadership, owned by the candidacy
     */
    void elected(Leadership leadership);

    /**
     * The leadership that {@link #elected} received has ended: it was lost (renewal failed, the lease expired, the
     * session died, someone force-unlocked the election) or resigned ({@link Candidacy#close()}). By the time this
     * runs, {@link Leadership#isValid()} is {@code false}.
     *
     * @param leadership the leadership that {@link #elected} received, now invalid
     */
    default void revoked(Leadership leadership) {
    }
}
