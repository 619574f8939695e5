package io.latchkey.core.internal.election;

import io.latchkey.LeaderInfo;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * The lock names an election uses, and the argument checks of election names and candidate ids.
 *
 * <ul>
 *   <li>The <em>election lock</em>, {@code latchkey.election:<name>}: its watchdog lease is the leadership, its
 *       fencing token the term.</li>
 *   <li>The <em>leader record</em>, {@code latchkey.leader:<length of name>:<name>/<term>/<since ms>/<candidate>}:
 *       a lock the leader takes right after being elected, whose name carries what
 *       {@link io.latchkey.LeaderElection#currentLeader()} shows. Observers list these names with the backend's
 *       inspector. One name per term, so a successor never waits for a paused predecessor's record; the length
 *       prefix makes the election name unambiguous (election {@code a} never lists the records of election
 *       {@code a/1/2}) without escaping.</li>
 * </ul>
 * Both prefixes are reserved: they cannot clash with lock names users pick unless they start theirs with
 * {@code latchkey.}.
 */
final class ElectionNames {

    static final int MAX_ELECTION_NAME = 200;
    static final int MAX_CANDIDATE_ID = 100;
    private static final String LOCK_PREFIX = "latchkey.election:";
    private static final String RECORD_PREFIX = "latchkey.leader:";

    private ElectionNames() {
    }

    static String checkElectionName(String name) {
        return check(name, "election name", MAX_ELECTION_NAME);
    }

    static String checkCandidateId(String id) {
        return check(id, "candidateId", MAX_CANDIDATE_ID);
    }

    private static String check(String value, String what, int max) {
        Objects.requireNonNull(value, what);
        if (value.isEmpty() || value.length() > max) {
            throw new IllegalArgumentException(String.format("%s must be 1 to %d characters but had %d", what, max,
                    value.length()));
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException(String.format(
                        "%s must not contain control characters but had U+%04X at index %d", what, (int) c, i));
            }
        }
        int lone = io.latchkey.core.internal.LockEngine.loneSurrogate(value);
        if (lone >= 0) {
            throw new IllegalArgumentException(String.format(
                    "%s must be well-formed UTF-16 but had a lone surrogate U+%04X at index %d", what,
                    (int) value.charAt(lone), lone));
        }
        return value;
    }

    static String electionLock(String election) {
        return LOCK_PREFIX + election;
    }

    /** What every leader record of {@code election} starts with. */
    static String recordPrefix(String election) {
        return RECORD_PREFIX + election.length() + ":" + election + "/";
    }

    static String record(String election, LeaderInfo info) {
        return recordPrefix(election) + info.term() + "/" + info.since().toEpochMilli() + "/" + info.candidateId();
    }

    /** The leader record named {@code lockName}, if it is one of {@code election}'s. */
    static Optional<LeaderInfo> parseRecord(String election, String lockName) {
        String prefix = recordPrefix(election);
        if (!lockName.startsWith(prefix)) {
            return Optional.empty();
        }
        int termEnd = lockName.indexOf('/', prefix.length());
        int sinceEnd = termEnd < 0 ? -1 : lockName.indexOf('/', termEnd + 1);
        if (sinceEnd < 0 || sinceEnd == lockName.length() - 1) {
            return Optional.empty();
        }
        try {
            long term = Long.parseLong(lockName.substring(prefix.length(), termEnd));
            long since = Long.parseLong(lockName.substring(termEnd + 1, sinceEnd));
            return Optional.of(new LeaderInfo(lockName.substring(sinceEnd + 1), term, Instant.ofEpochMilli(since)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
