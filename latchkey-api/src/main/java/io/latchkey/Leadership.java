package io.latchkey;

import java.time.Instant;
import java.util.concurrent.Callable;

/**
 * One term of leadership of one candidate in a {@link LeaderElection}, obtained from
 * {@link LeaderElection#awaitLeadership()}. It is a {@link LockLease} of the election's lock under another name: it
 * is owned by this object, not by a thread, and it ends when it is {@linkplain #close() resigned} or lost.
 *
 * <pre>{@code
 * try (Leadership leadership = election.awaitLeadership()) {
 *     leadership.runWhileValid(() -> {
 *         while (true) {
 *             store.write(batch(), leadership.term());   // the store refuses terms lower than the last it saw
 *         }
 *     });
 * } catch (LockLostException e) {
 *     // revoked while the loop ran: it was interrupted
 * }
 * }</pre>
 *
 * <h2>Term and fencing</h2>
 * {@link #term()} is the fencing token of the election lock's hold: strictly greater than the term of every earlier
 * leadership of the same election, across candidates, clients, processes and restarts. At most one leadership is
 * valid per term, but two candidates can both <em>believe</em> they lead for a moment (a paused leader has not yet
 * noticed that its lease ran out and a successor was elected), so writes to shared state must carry the term and
 * the state must refuse a term lower than the highest it has seen ({@code FencingGuard} in {@code latchkey-jdbc}
 * does this for SQL tables).
 *
 * <h2>Renewal, crash and pause</h2>
 * The client's watchdog renews the leadership every {@link ClientOptions#renewalInterval()}. If this process
 * crashes, the leadership ends on the server after {@link ClientOptions#watchdogTimeout()} (ZooKeeper: the session
 * timeout) and the next candidate is elected then. If this process is paused (GC, SIGSTOP, a suspended VM) for
 * longer than that, another candidate may be elected with a higher term while this object still reports valid;
 * when the process resumes, the first renewal finds the lease gone: {@link #isValid()} turns {@code false}, the
 * {@link #onRevoked} listeners run, and a {@link #runWhileValid} task is interrupted. Fencing with the term closes
 * the window in between.
 *
 * <h2>Memory effects</h2>
 * Actions of a leader before its leadership ends (resigned or expired on the server) happen-before the actions of
 * the next leader after its {@code awaitLeadership} returns, as for a {@link LockLease}.
 */
public interface Leadership extends AutoCloseable {

    /** {@return the name of the election} */
    String electionName();

    /** {@return the candidate id of the leader holding this leadership} */
    String candidateId();

    /**
     * {@return the fencing token of this leadership} It is strictly greater than the term of every earlier leadership
     * of this election name, whoever held it.
     */
    long term();

    /** {@return when this candidate learned it was elected, by this machine's wall clock} */
    Instant since();

    /**
     * {@return whether this leadership still holds as far as this client knows} That is: not resigned, not known lost,
     * and confirmed recently enough — its last successful renewal was sent less than one lease time
     * ({@link ClientOptions#watchdogTimeout()}) ago. The last condition makes a process that resumes after a long pause
     * see {@code false} at once, before its watchdog has even asked the server; it turns {@code true} again if the next
     * renewal confirms the leadership, and the leadership is revoked if it does not. Check it right before each write
     * that must come from the leader (and fence the write with {@link #term()} all the same: a pause can also fall
     * between the check and the write).
     */
    boolean isValid();

    /**
     * Registers a listener that runs once when this leadership is lost (renewal failed, the lease ran out, the
     * session expired, the election lock was force-unlocked) — never after a resignation with {@link #close()}. A
     * listener registered after the loss runs at once on the calling thread. Listeners run on a Latchkey thread,
     * must not block and must not throw.
     *
     * @param listener the action to run on loss; not null
     */
    void onRevoked(Runnable listener);

    /**
     * Unregisters a listener given to {@link #onRevoked} (the same instance) that has not run; does nothing otherwise.
     * {@link #runWhileValid} removes its own listener this way when its task returns.
     *
     * @param listener the listener to remove, the instance given to {@link #onRevoked}
     */
    default void removeOnRevoked(Runnable listener) {
        // a leadership that keeps no removable listeners: they are dropped with it
    }

    /**
     * Runs {@code task} on the calling thread while this leadership is valid, and interrupts the calling thread the
     * moment the leadership is lost. See {@link LockLease#runWhileValid(Callable)}, which this mirrors.
     *
     * @param <T> the type of the task's result
     * @param task the work to run on the calling thread; not null
     * @return what {@code task} returned, if it completed before the loss was noticed
     * @throws LockLostException if the leadership was lost before or while {@code task} ran (the task's own
     *         exception, if any, is its cause), or was resigned before the call
     * @throws Exception what {@code task} threw while the leadership was valid
     */
    default <T> T runWhileValid(Callable<T> task) throws Exception {
        return WhileValid.run("leadership of election", electionName(), this::isValid, this::onRevoked,
                this::removeOnRevoked, task);
    }

    /**
     * Resigns: releases the election lock so that the next candidate is elected at once (one round trip plus its
     * wake-up), and clears this leader from {@link LeaderElection#currentLeader()}. {@link #onRevoked} listeners do
     * not run. Resigning a leadership that was already lost is not an error. Idempotent.
     *
     * @throws LockUnavailableException if the backend could not be reached; the leadership is then no longer
     *         renewed and ends on the server when its lease runs out
     */
    @Override
    void close();
}
