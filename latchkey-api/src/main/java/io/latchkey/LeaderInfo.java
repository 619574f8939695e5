package io.latchkey;

import java.time.Instant;
import java.util.Objects;

/**
 * Who leads an election, as an observer sees it ({@link LeaderElection#currentLeader()}): a snapshot that may be
 * out of date by the time it is read.
 *
 * @param candidateId the leader's {@linkplain LeaderElection#candidateId() candidate id}
 * @param term the leader's {@linkplain Leadership#term() term}: its fencing token
 * @param since when the leader learned it was elected, by the leader's wall clock (informational: never compare it
 *        with another machine's clock to decide anything)
 */
public record LeaderInfo(String candidateId, long term, Instant since) {

    /**
     * Creates the snapshot of one leadership.
     *
     * @param candidateId the leader's candidate id; not null
     * @param term the leader's term
     * @param since when the leader learned it was elected; not null
     * @throws NullPointerException if a reference is {@code null}
     */
    public LeaderInfo {
        Objects.requireNonNull(candidateId, "candidateId");
        Objects.requireNonNull(since, "since");
    }
}
