package io.latchkey.kotlin

import io.latchkey.LockLostException
import java.util.concurrent.atomic.AtomicReference
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.CoroutineStart
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.async
import kotlinx.coroutines.supervisorScope
import kotlinx.coroutines.withContext

private val log: System.Logger = System.getLogger("io.latchkey.kotlin")

/**
 * Runs [block] in a child coroutine that is cancelled when the hold is lost: the loss listener cancels it with a
 * [CancellationException] whose cause is a [LockLostException], and this call then throws that exception. A block
 * that returns or fails after the loss has its outcome replaced by the same exception (the work was not protected
 * to its end); its own failure is attached as suppressed.
 *
 * The child runs in a supervisor scope, so that a failure of the block reaches this call as itself (and as the
 * [LockLostException] after a loss), not as a cancellation of the caller.
 */
internal suspend fun <T> runWhileHeld(
    what: String,
    name: String,
    lockName: String,
    isValid: () -> Boolean,
    onLost: (Runnable) -> Unit,
    removeOnLost: (Runnable) -> Unit,
    block: suspend CoroutineScope.() -> T,
): T = supervisorScope {
    val lost = AtomicReference<LockLostException?>()
    val child = async(start = CoroutineStart.LAZY) { block() }
    val listener = Runnable {
        val e = LockLostException(lockName, "$what '$name' was lost; the block was cancelled")
        if (lost.compareAndSet(null, e)) {
            child.cancel(CancellationException(e.message, e))
        }
    }
    onLost(listener)
    try {
        if (!isValid()) {
            // lost before the block could start: it never runs
            listener.run()
        }
        child.start()
        val result = try {
            child.await()
        } catch (t: Throwable) {
            val l = lost.get() ?: throw t
            if (t !is CancellationException && t !== l) l.addSuppressed(t)
            throw l
        }
        lost.get()?.let { throw it }
        result
    } finally {
        removeOnLost(listener)
    }
}

/**
 * Runs [release] after the holder's work, cancelled or not, without letting it mask the work's own failure: a
 * release failure is thrown only when the work succeeded, else attached to the work's failure as suppressed.
 */
internal suspend fun <T> releasingAfter(release: suspend () -> Unit, work: suspend () -> T): T {
    var failure: Throwable? = null
    try {
        return work()
    } catch (t: Throwable) {
        failure = t
        throw t
    } finally {
        withContext(NonCancellable) {
            try {
                release()
            } catch (e: Throwable) {
                val f = failure
                when {
                    f == null -> throw e
                    f === e -> Unit
                    // the block's LockLostException already says the lock was lost; a release that finds the same is
                    // no news
                    f is LockLostException && e is LockLostException -> Unit
                    else -> f.addSuppressed(e)
                }
            }
        }
    }
}

/** Gives back what a cancelled caller was granted; never throws, never blocks (it runs on a Latchkey thread). */
internal inline fun giveBack(what: String, action: () -> Unit) {
    try {
        action()
    } catch (e: RuntimeException) {
        log.log(System.Logger.Level.WARNING, "could not give back $what granted to a cancelled coroutine; it ends with its lease", e)
    }
}

internal fun logGiveBackFailure(what: String, e: Throwable) {
    log.log(System.Logger.Level.WARNING, "could not give back $what granted to a cancelled coroutine; it ends with its lease", e)
}
