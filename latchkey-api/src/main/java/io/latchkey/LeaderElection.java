package io.latchkey;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A named election among any number of candidates in any number of clients and processes, obtained from
 * {@link LockClient#leaderElection(String)}: at most one candidate leads at a time, and each leadership carries a
 * {@linkplain Leadership#term() term} that is a fencing token.
 *
 * <pre>{@code
 * LeaderElection election = client.leaderElection("billing-scheduler", "node-7");
 * try (Leadership leadership = election.awaitLeadership()) {
 *     leadership.runWhileValid(() -> runScheduler(leadership.term()));
 * }
 *
 * // or, for a service that should lead whenever it can (like Curator's LeaderLatch):
 * Candidacy candidacy = election.start(new LeadershipListener() {
 *     public void elected(Leadership l) { scheduler.start(l.term()); }
 *     public void revoked(Leadership l) { scheduler.stop(); }
 * });
 * }</pre>
 *
 * <h2>How it works</h2>
 * Leadership is a watchdog-renewed lease of one lock of the backend, reserved for this election (its name is
 * derived from the election's and does not collide with {@link LockClient#lock(String)} names); the leadership's
 * term is that lease's fencing token. The leader also publishes who it is (candidate id, term, since) for
 * {@link #currentLeader()}. Candidates wait as lock waiters do: they are woken by the backend when the leader
 * resigns (pub/sub, watches, notifications) or, if the leader crashed, when its lease runs out.
 *
 * <h2>Waiting and interruption</h2>
 * {@link #awaitLeadership()} blocks until this candidate is elected; it is woken by a resignation or expiry of the
 * current leader, by interruption (it then throws {@link InterruptedException} and leaves nothing behind on the
 * server: no queued entry, no leadership), or by the client closing ({@link LockUnavailableException}). Candidates of
 * one client waiting on one election share a single remote waiter. Arrival order among candidates is not
 * guaranteed.
 *
 * <p>This object is a cheap, thread-safe view: any number of threads may campaign through it, each getting its own
 * {@link Leadership}. It does not keep a leadership itself; the candidate that holds one must close it.
 */
public interface LeaderElection {

    /** {@return the election's name, as given to {@link LockClient#leaderElection(String)}} */
    String name();

    /**
     * {@return the id this candidate publishes while it leads} It is {@link LockClient#clientId()} unless one was
     * given to {@link LockClient#leaderElection(String, String)}.
     */
    String candidateId();

    /**
     * {@return the name of the lock whose watchdog lease is the leadership} It is {@code latchkey.election:<name>}, for
     * administration: {@code latchkey unlock URI <lockName>} (or {@link DistributedLock#forceUnlock()} on it) revokes
     * the current leader, whose {@link Leadership#onRevoked} listeners then run.
     */
    String lockName();

    /**
     * Campaigns until this candidate is elected.
     *
     * @return the leadership, valid until it is closed (resigned) or revoked; the caller must close it
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is left on the server
     * @throws LockUnavailableException if the backend cannot be reached or the client is closed
     */
    Leadership awaitLeadership() throws InterruptedException;

    /**
     * Campaigns for at most {@code waitTime}; zero or a negative wait makes a single attempt (as in
     * {@code java.util.concurrent}).
     *
     * @param waitTime how long to campaign at most
     * @return the leadership, which the caller must close, or empty if another candidate still leads when the time
     *         is up (nothing is left on the server)
     * @throws InterruptedException if the thread is interrupted while waiting; nothing is left on the server
     * @throws LockUnavailableException if the backend cannot be reached or the client is closed
     */
    Optional<Leadership> tryAwaitLeadership(Duration waitTime) throws InterruptedException;

    /**
     * {@link #awaitLeadership()} without blocking a thread: campaigns until this candidate is elected.
     *
     * <p>Asynchronous: no thread waits. The future completes on a Latchkey thread (use the {@code *Async} stages with
     * an executor of your own for work that blocks). Cancelling it before it completes withdraws the candidate; a
     * leadership won in a race with the cancellation is resigned, so nothing is left on the server.
     *
     * @return a future that completes with the leadership, which the caller must close, or fails with
     *         {@link LockUnavailableException} if the backend cannot be reached or the client closes
     * @throws UnsupportedOperationException if this election does not offer asynchronous campaigns
     */
    default CompletableFuture<Leadership> awaitLeadershipAsync() {
        throw new UnsupportedOperationException("awaitLeadershipAsync is not offered by " + this);
    }

    /**
     * Who leads now, for observers that do not campaign: the candidate id, term and start of the current
     * leadership, or empty if nobody leads. It is read from the backend (a listing of the election's records, see
     * {@code docs/leader-election.md}) and is a snapshot: right after a hand-over it may still show the previous
     * leader for about one round trip, and a leader that crashed is shown until its lease runs out.
     *
     * @return the current leader's candidate id, term and start, or empty if nobody leads
     * @throws LockUnavailableException if the backend cannot be reached within the operation timeout
     */
    Optional<LeaderInfo> currentLeader();

    /**
     * Starts a candidate that campaigns on its own thread, calls {@code listener} when elected and when revoked, and
     * campaigns again after each loss, until the returned candidacy is closed (or the client is).
     *
     * @param listener told of each election and revocation of this candidate, on the candidacy's thread; not null
     * @return the running candidacy; closing it stops campaigning and resigns a leadership it holds
     */
    Candidacy start(LeadershipListener listener);
}
