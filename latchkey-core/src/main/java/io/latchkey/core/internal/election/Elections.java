package io.latchkey.core.internal.election;

import io.latchkey.Candidacy;
import io.latchkey.LeadershipListener;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The running candidacies of one client, so that closing the client stops them (each resigns its leadership
 * before the client's connection goes).
 */
public final class Elections {

    private final String backendName;
    private final Set<ElectionCandidacy> running = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    public Elections(String backendName) {
        this.backendName = backendName;
    }

    Candidacy start(LockLeaderElection election, LeadershipListener listener) {
        if (closed) {
            throw new IllegalStateException("client closed");
        }
        ElectionCandidacy candidacy = new ElectionCandidacy(election, listener, backendName, running::remove);
        running.add(candidacy);
        candidacy.startThread();
        if (closed) {
            candidacy.close();
        }
        return candidacy;
    }

    /** Closes every running candidacy and waits for their threads. */
    public void close() {
        closed = true;
        for (ElectionCandidacy c : running) {
            c.close();
        }
    }
}
