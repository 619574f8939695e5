@file:JvmName("Stores")

package io.latchkey.kotlin

import io.latchkey.FencedStore
import io.latchkey.Leadership
import io.latchkey.LockLease
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext

// Suspending FencedStore calls. Reads and lease-fenced writes suspend on the store's futures: no thread waits.
// Cancelling a write that is on its way to the server does not take it back: like a write that timed out, it may
// or may not have been applied (read the key again, or write once more with your lease).

/**
 * The value of [key], `null` if it has none; needs no lease. Suspends on [FencedStore.getAsync].
 *
 * @throws IllegalArgumentException if the key is invalid
 * @throws io.latchkey.LockUnavailableException if the backend cannot be reached
 */
public suspend fun FencedStore.getSuspending(key: String): ByteArray? = getAsync(key).awaitValue().orElse(null)

/** [getSuspending] as UTF-8 text. */
public suspend fun FencedStore.getStringSuspending(key: String): String? =
    getSuspending(key)?.toString(Charsets.UTF_8)

/**
 * Sets [key] to [value] if [lease] is still the current hold of the store's lock, checked and written in one step
 * on the server. Suspends on [FencedStore.putAsync].
 *
 * @throws io.latchkey.StaleLeaseException if the lease is no longer the current hold (released, expired, lost or
 *         superseded); nothing was written
 * @throws IllegalArgumentException if the lease is of another lock, or the key or value is invalid
 */
public suspend fun FencedStore.putSuspending(lease: LockLease, key: String, value: ByteArray) {
    putAsync(lease, key, value).awaitValue()
}

/** [putSuspending] of [value]'s UTF-8 bytes. */
public suspend fun FencedStore.putStringSuspending(lease: LockLease, key: String, value: String) {
    putSuspending(lease, key, value.toByteArray(Charsets.UTF_8))
}

/**
 * Sets [key] to [value] if [lease] is the current hold and the key's value equals [expected] byte for byte
 * (`null`: only if the key has no value); whether it was swapped. Suspends on [FencedStore.compareAndSetAsync].
 *
 * @throws io.latchkey.StaleLeaseException if the lease is no longer the current hold; nothing was written
 * @throws IllegalArgumentException if the lease is of another lock, or the key or a value is invalid
 */
public suspend fun FencedStore.compareAndSetSuspending(
    lease: LockLease,
    key: String,
    expected: ByteArray?,
    value: ByteArray,
): Boolean = compareAndSetAsync(lease, key, expected, value).awaitValue()

/**
 * Removes [key] if [lease] is the current hold; whether the key had a value. Suspends on [FencedStore.deleteAsync].
 *
 * @throws io.latchkey.StaleLeaseException if the lease is no longer the current hold; nothing was deleted
 * @throws IllegalArgumentException if the lease is of another lock or the key is invalid
 */
public suspend fun FencedStore.deleteSuspending(lease: LockLease, key: String): Boolean =
    deleteAsync(lease, key).awaitValue()

/**
 * [putSuspending] fenced by a [Leadership] of the election whose lock is this store's lock
 * ([FencedStore.electionLockName]). The Java API has no future for leadership writes, so this one waits for the
 * server on [Dispatchers.IO].
 *
 * @throws io.latchkey.StaleLeaseException if the leadership is no longer the current hold; nothing was written
 */
public suspend fun FencedStore.putSuspending(leadership: Leadership, key: String, value: ByteArray) {
    withContext(Dispatchers.IO) { put(leadership, key, value) }
}

/** [compareAndSetSuspending] fenced by a [Leadership]; waits on [Dispatchers.IO], see [putSuspending]. */
public suspend fun FencedStore.compareAndSetSuspending(
    leadership: Leadership,
    key: String,
    expected: ByteArray?,
    value: ByteArray,
): Boolean = withContext(Dispatchers.IO) { compareAndSet(leadership, key, expected, value) }

/** [deleteSuspending] fenced by a [Leadership]; waits on [Dispatchers.IO], see [putSuspending]. */
public suspend fun FencedStore.deleteSuspending(leadership: Leadership, key: String): Boolean =
    withContext(Dispatchers.IO) { delete(leadership, key) }
