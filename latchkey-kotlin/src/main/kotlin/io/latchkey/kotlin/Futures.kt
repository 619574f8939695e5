package io.latchkey.kotlin

import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import java.util.concurrent.ExecutionException
import kotlin.coroutines.resumeWithException
import kotlinx.coroutines.suspendCancellableCoroutine

/**
 * Suspends until this future completes, without a thread waiting: the future's completion resumes the coroutine on
 * its own dispatcher (never on the backend's I/O thread that completed the future).
 *
 * Cancelling the coroutine cancels the future (the engine withdraws the waiter, and gives back a grant that was on
 * its way). A value that arrives anyway — the future completed, but the coroutine was cancelled before it could
 * resume with it — is handed to [undo], so nothing acquired for a cancelled caller stays held.
 */
internal suspend fun <T> CompletableFuture<T>.awaitOrUndo(undo: (T) -> Unit): T =
    suspendCancellableCoroutine { cont ->
        whenComplete { value, error ->
            if (error != null) {
                cont.resumeWithException(unwrap(error))
            } else {
                cont.resume(value) { _, dropped, _ -> undo(dropped) }
            }
        }
        cont.invokeOnCancellation { cancel(false) }
    }

/** [awaitOrUndo] for a future whose value holds nothing. */
internal suspend fun <T> CompletableFuture<T>.awaitValue(): T = awaitOrUndo { }

internal fun unwrap(error: Throwable): Throwable =
    if ((error is CompletionException || error is ExecutionException) && error.cause != null) error.cause!! else error
