@file:JvmName("Semaphores")

package io.latchkey.kotlin

import io.latchkey.DistributedSemaphore
import io.latchkey.PermitExpirableSemaphore
import kotlin.time.Duration
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.coroutineScope

/**
 * Takes [permits] permits at once (all or none), suspending until they are free; no thread waits.
 *
 * Cancelling the calling coroutine while it waits withdraws its waiter; permits granted in a race with the
 * cancellation are given back.
 *
 * @throws IllegalArgumentException if `permits < 1`
 * @throws io.latchkey.LockUnavailableException if the backend cannot be reached or the client closes
 */
public suspend fun DistributedSemaphore.acquireSuspending(permits: Int = 1) {
    require(permits >= 1) { "permits must be at least 1 but was $permits" }
    acquireAsync(permits).awaitOrUndo { givePermitsBack(permits) }
}

/**
 * Like [acquireSuspending], waiting at most [waitTime] ([Duration.ZERO]: a single attempt); `false`, with no permit
 * taken, when the time is up.
 *
 * @throws IllegalArgumentException if `permits < 1` (a negative [waitTime] tries once)
 */
public suspend fun DistributedSemaphore.tryAcquireSuspending(permits: Int = 1, waitTime: Duration): Boolean {
    require(permits >= 1) { "permits must be at least 1 but was $permits" }
    val wait = waitTime.toJavaWait()
    if (waitTime.isInfinite()) {
        acquireSuspending(permits)
        return true
    }
    return tryAcquireAsync(permits, wait).awaitOrUndo { taken -> if (taken) givePermitsBack(permits) }
}

/** Returns [permits] permits without blocking a thread. */
public suspend fun DistributedSemaphore.releaseSuspending(permits: Int = 1) {
    require(permits >= 1) { "permits must be at least 1 but was $permits" }
    releaseAsync(permits).awaitValue()
}

/**
 * Runs [block] holding [permits] permits, and gives them back afterwards — also when the block fails or the caller
 * is cancelled. (A semaphore's permits have no loss signal: they are not leased.)
 */
public suspend fun <T> DistributedSemaphore.withPermits(permits: Int = 1, block: suspend CoroutineScope.() -> T): T {
    acquireSuspending(permits)
    return releasingAfter({ releaseSuspending(permits) }) { coroutineScope(block) }
}

private fun DistributedSemaphore.givePermitsBack(permits: Int) {
    giveBack("$permits permit(s) of semaphore '${name()}'") {
        releaseAsync(permits).whenComplete { _, e ->
            if (e != null) logGiveBackFailure("$permits permit(s) of semaphore '${name()}'", e)
        }
    }
}

/**
 * Takes one permit that expires [leaseTime] after it is granted, suspending until one is free; returns its id.
 * Cancelling the caller while it waits withdraws its waiter; a permit granted in a race with the cancellation is
 * released.
 *
 * @throws IllegalArgumentException if [leaseTime] is not positive and finite
 */
public suspend fun PermitExpirableSemaphore.acquireSuspending(leaseTime: Duration): String {
    val lease = leaseTime.toJavaLease()
    return acquireAsync(lease).awaitOrUndo(::givePermitBack)
}

/**
 * Like [acquireSuspending], waiting at most [waitTime]; `null` when the time is up.
 *
 * @throws IllegalArgumentException if [leaseTime] is not positive and finite (a negative [waitTime] tries once)
 */
public suspend fun PermitExpirableSemaphore.tryAcquireSuspending(waitTime: Duration, leaseTime: Duration): String? {
    val wait = waitTime.toJavaWait()
    val lease = leaseTime.toJavaLease()
    return tryAcquireAsync(wait, lease).awaitOrUndo { it.ifPresent(::givePermitBack) }.orElse(null)
}

/** Releases the permit [permitId] without blocking a thread; `false` if it had expired or was released already. */
public suspend fun PermitExpirableSemaphore.releaseSuspending(permitId: String): Boolean =
    releaseAsync(permitId).awaitValue()

/**
 * Runs [block] holding one permit that expires [leaseTime] after it is granted, and releases it afterwards. The
 * Java API gives a permit no loss signal, so the block is not cancelled when the permit expires: keep it shorter
 * than [leaseTime] (wrap it in `withTimeout`), or extend the lease with [PermitExpirableSemaphore.updateLease].
 */
public suspend fun <T> PermitExpirableSemaphore.withPermit(
    leaseTime: Duration,
    block: suspend CoroutineScope.(permitId: String) -> T,
): T {
    val permitId = acquireSuspending(leaseTime)
    return releasingAfter({ releaseSuspending(permitId) }) { coroutineScope { block(permitId) } }
}

private fun PermitExpirableSemaphore.givePermitBack(permitId: String) {
    giveBack("permit $permitId of semaphore '${name()}'") {
        releaseAsync(permitId).whenComplete { _, e ->
            if (e != null) logGiveBackFailure("permit $permitId of semaphore '${name()}'", e)
        }
    }
}
