package io.latchkey;

import java.util.Optional;

/**
 * A candidate that campaigns again after each loss, returned by {@link LeaderElection#start(LeadershipListener)};
 * the equivalent of a started Curator {@code LeaderLatch}. It runs on one thread of its own, named
 * {@code latchkey-<backend>-election-<election name>-<candidate id>} (each part cut to 32 characters), until {@link #close()}.
 */
public interface Candidacy extends AutoCloseable {

    /** {@return the election this candidacy runs in} */
    LeaderElection election();

    /** {@return whether this candidate holds a {@linkplain Leadership#isValid() valid} leadership right now} */
    boolean isLeader();

    /**
     * {@return the current leadership of this candidate, or empty if it holds none} A leadership returned may turn
     * invalid at any time.
     */
    Optional<Leadership> leadership();

    /**
     * Stops campaigning: a pending campaign is withdrawn (nothing stays queued on the server), a held leadership is
     * resigned (the next candidate takes over at once) and {@link LeadershipListener#revoked} runs for it; then the
     * candidacy's thread ends. Waits for that thread unless called from a listener callback. Idempotent.
     */
    @Override
    void close();
}
