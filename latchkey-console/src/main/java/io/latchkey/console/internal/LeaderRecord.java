package io.latchkey.console.internal;

/**
 * What a leader election leaves in a backend, as the console and {@code latchkey inspect} read it: the election's
 * lock ({@value #ELECTION_LOCK}{@code <name>}, fenced by the term) and the leader records
 * ({@value #LEADER_RECORD}{@code <length of name>:<name>/<term>/<since ms>/<candidate id>}). Not part of the API: the
 * package is exported to nobody (the command line reaches it on the class path).
 */
public record LeaderRecord(String name, long term, long sinceMs, String candidate) {

    /** The prefix of an election's lock. */
    public static final String ELECTION_LOCK = "latchkey.election:";

    /** The prefix of a leader record. */
    public static final String LEADER_RECORD = "latchkey.leader:";

    /** The leader record named {@code lockName}, or null if it is not a well-formed one. */
    public static LeaderRecord of(String lockName) {
        if (!lockName.startsWith(LEADER_RECORD)) {
            return null;
        }
        int colon = lockName.indexOf(':', LEADER_RECORD.length());
        if (colon < 0) {
            return null;
        }
        try {
            int length = Integer.parseInt(lockName.substring(LEADER_RECORD.length(), colon));
            int nameEnd = colon + 1 + length;
            if (length < 1 || nameEnd >= lockName.length() || lockName.charAt(nameEnd) != '/') {
                return null;
            }
            int termEnd = lockName.indexOf('/', nameEnd + 1);
            int sinceEnd = termEnd < 0 ? -1 : lockName.indexOf('/', termEnd + 1);
            if (sinceEnd < 0) {
                return null;
            }
            return new LeaderRecord(lockName.substring(colon + 1, nameEnd),
                    Long.parseLong(lockName.substring(nameEnd + 1, termEnd)),
                    Long.parseLong(lockName.substring(termEnd + 1, sinceEnd)), lockName.substring(sinceEnd + 1));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
