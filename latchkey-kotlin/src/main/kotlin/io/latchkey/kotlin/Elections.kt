@file:JvmName("Elections")

package io.latchkey.kotlin

import io.latchkey.LeaderElection
import io.latchkey.Leadership
import io.latchkey.LockLostException
import java.util.concurrent.atomic.AtomicBoolean
import kotlin.coroutines.resume
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.asExecutor
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext

/**
 * Campaigns until this candidate is elected, suspending meanwhile; no thread waits. The caller must
 * [close][Leadership.close] (resign) the leadership, or use [whileLeader].
 *
 * Cancelling the caller withdraws the candidate; a leadership won in a race with the cancellation is resigned.
 *
 * @throws io.latchkey.LockUnavailableException if the backend cannot be reached or the client closes
 */
public suspend fun LeaderElection.awaitLeadershipSuspending(): Leadership =
    awaitLeadershipAsync().awaitOrUndo(::resignInBackground)

/**
 * Campaigns, runs [block] as the leader, and resigns afterwards — also when the block fails or the caller is
 * cancelled.
 *
 * The block runs in a child scope that is **cancelled when the leadership is revoked** (its lease lost): the block
 * sees a [CancellationException] whose cause is a [LockLostException], and this call throws that exception. The
 * block gets the leadership: its [Leadership.term] is a fencing token.
 */
public suspend fun <T> LeaderElection.whileLeader(block: suspend CoroutineScope.(Leadership) -> T): T {
    val leadership = awaitLeadershipSuspending()
    return releasingAfter({ resign(leadership) }) {
        runWhileHeld("leadership of election", name(), lockName(), leadership::isValid, leadership::onRevoked,
            leadership::removeOnRevoked) { block(leadership) }
    }
}

/**
 * This candidate's leadership while the flow is collected: `null` while not leading, the [Leadership] once
 * elected, `null` again when it is revoked — after which the candidate campaigns again. Collecting campaigns;
 * cancelling the collection resigns.
 *
 * Use `collectLatest`, so that the work of a leadership is cancelled when the `null` that ends it arrives:
 * ```
 * election.leadership().collectLatest { leadership ->
 *     if (leadership != null) runScheduler(leadership.term())
 * }
 * ```
 * A backend error while campaigning ends the flow with that error (`retry` to keep campaigning).
 */
public fun LeaderElection.leadership(): Flow<Leadership?> = flow {
    emit(null)
    while (true) {
        val leadership = awaitLeadershipSuspending()
        try {
            if (leadership.isValid) {
                emit(leadership)
                leadership.awaitRevoked()
            }
        } finally {
            withContext(NonCancellable) { resign(leadership) }
        }
        emit(null)
    }
}

/** Suspends until this leadership is revoked (its lease lost). */
internal suspend fun Leadership.awaitRevoked(): Unit = suspendCancellableCoroutine { cont ->
    val once = AtomicBoolean()
    val listener = Runnable { if (once.compareAndSet(false, true)) cont.resume(Unit) }
    onRevoked(listener)
    cont.invokeOnCancellation { removeOnRevoked(listener) }
    if (!isValid && once.compareAndSet(false, true)) {
        removeOnRevoked(listener)
        cont.resume(Unit)
    }
}

/** Resigns; [Leadership.close] waits for the server's answer, so it runs on the IO dispatcher. */
private suspend fun resign(leadership: Leadership) {
    withContext(Dispatchers.IO) { leadership.close() }
}

/** For a leadership won by a cancelled caller: this runs on a Latchkey thread, which must not block. */
private fun resignInBackground(leadership: Leadership) {
    giveBack("leadership of election '${leadership.electionName()}'") {
        Dispatchers.IO.asExecutor().execute {
            try {
                leadership.close()
            } catch (e: RuntimeException) {
                logGiveBackFailure("leadership of election '${leadership.electionName()}'", e)
            }
        }
    }
}
