@file:JvmName("Locks")

package io.latchkey.kotlin

import io.latchkey.DistributedLock
import io.latchkey.DistributedReadWriteLock
import io.latchkey.LockLease
import io.latchkey.LockLostException
import kotlin.time.Duration
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CoroutineScope

/**
 * Acquires a lease of this lock, suspending while it is busy: no thread waits (the engine's wait is a future).
 *
 * With no [leaseTime] the lease is renewed by the client's watchdog until released; with one, it expires on the
 * server after that time. The lease is owned by the returned handle, not by a thread: release it from any coroutine
 * ([releaseSuspending] or [LockLease.releaseAsync]).
 *
 * Cancelling the calling coroutine while it waits withdraws its waiter; a grant that raced the cancellation is
 * released, so a cancelled caller never leaves the lock held.
 *
 * @throws IllegalArgumentException if [leaseTime] is not positive and finite
 * @throws io.latchkey.LockUnavailableException if the backend cannot be reached or the client closes
 */
public suspend fun DistributedLock.acquireSuspending(leaseTime: Duration? = null): LockLease {
    val lease = leaseTime.toJavaLease()
        ?: return acquireAsync().awaitOrUndo(::releaseGranted)
    while (true) {
        // the Java API's unbounded wait with a lease time is a timed wait; a day at a time keeps every
        // implementation's deadline arithmetic far from overflow
        tryAcquireAsync(LONG_WAIT, lease).awaitOrUndo { it.ifPresent(::releaseGranted) }
            .let { if (it.isPresent) return it.get() }
    }
}

/**
 * Like [acquireSuspending], waiting at most [waitTime] ([Duration.ZERO]: a single attempt); `null` when the time is
 * up and the lock is still held by someone else.
 *
 * @throws IllegalArgumentException if [leaseTime] is not positive and finite (a negative [waitTime] tries once)
 */
public suspend fun DistributedLock.tryAcquireSuspending(waitTime: Duration, leaseTime: Duration? = null): LockLease? {
    val wait = waitTime.toJavaWait()
    val lease = leaseTime.toJavaLease()
    if (waitTime.isInfinite()) return acquireSuspending(leaseTime)
    return tryAcquireAsync(wait, lease).awaitOrUndo { it.ifPresent(::releaseGranted) }.orElse(null)
}

/**
 * Runs [block] holding this lock, and releases it afterwards — also when the block fails or the caller is
 * cancelled.
 *
 * The block runs in a child scope that is **cancelled when the lease is lost** (renewal failed, session expired,
 * fixed lease ran out, lock force-unlocked): the block sees a [CancellationException] whose cause is a
 * [LockLostException], and this call throws that [LockLostException]. Work that is no longer protected by the
 * lock stops at its next suspension point, and so do the coroutines it launched. The block gets the lease: pass
 * its [LockLease.fencingToken] to the resource it guards.
 *
 * @param leaseTime `null` for a watchdog-renewed lease; else the lease expires after this time, and the block is
 *        cancelled when it does
 * @throws LockLostException if the lease was lost while the block ran (or, after the block succeeded, by the time
 *         it was released)
 */
public suspend fun <T> DistributedLock.withLock(
    leaseTime: Duration? = null,
    block: suspend CoroutineScope.(LockLease) -> T,
): T = acquireSuspending(leaseTime).holding(block)

/**
 * [withLock] if the lock can be acquired within [waitTime], else `null` without running [block].
 */
public suspend fun <T> DistributedLock.tryWithLock(
    waitTime: Duration,
    leaseTime: Duration? = null,
    block: suspend CoroutineScope.(LockLease) -> T,
): T? = tryAcquireSuspending(waitTime, leaseTime)?.holding(block)

/** [withLock] on the [read lock][DistributedReadWriteLock.readLock]: shared with other readers. */
public suspend fun <T> DistributedReadWriteLock.withReadLock(
    leaseTime: Duration? = null,
    block: suspend CoroutineScope.(LockLease) -> T,
): T = readLock().withLock(leaseTime, block)

/** [withLock] on the [write lock][DistributedReadWriteLock.writeLock]: exclusive. */
public suspend fun <T> DistributedReadWriteLock.withWriteLock(
    leaseTime: Duration? = null,
    block: suspend CoroutineScope.(LockLease) -> T,
): T = writeLock().withLock(leaseTime, block)

/**
 * Releases this lease without blocking a thread.
 *
 * @throws LockLostException if the lock had been lost (the release itself still cleans up)
 */
public suspend fun LockLease.releaseSuspending() {
    releaseAsync().awaitValue()
}

/**
 * Runs [block] while this lease is held, cancelling it when the lease is lost, and releases the lease afterwards;
 * see [withLock].
 */
public suspend fun <T> LockLease.holding(block: suspend CoroutineScope.(LockLease) -> T): T =
    releasingAfter({ releaseSuspending() }) {
        runWhileHeld("the lease of lock", lockName(), lockName(), ::isValid, ::onLost, ::removeOnLost) {
            block(this@holding)
        }
    }

private fun releaseGranted(lease: LockLease) {
    giveBack("lock '${lease.lockName()}'") {
        lease.releaseAsync().whenComplete { _, e -> if (e != null) logGiveBackFailure("lock '${lease.lockName()}'", e) }
    }
}
