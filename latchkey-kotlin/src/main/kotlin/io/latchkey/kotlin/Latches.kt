@file:JvmName("Latches")

package io.latchkey.kotlin

import io.latchkey.DistributedCountDownLatch
import kotlin.time.Duration

/**
 * Suspends until the count reaches zero; no thread waits. Cancelling the caller withdraws its waiter.
 *
 * @throws io.latchkey.LockUnavailableException if the backend cannot be reached or the client closes
 */
public suspend fun DistributedCountDownLatch.awaitSuspending() {
    while (!awaitAsync(LONG_WAIT).awaitValue()) {
        // a day passed: wait again
    }
}

/**
 * Suspends until the count reaches zero or [timeout] passes; whether it reached zero. A negative [timeout] looks
 * once.
 */
public suspend fun DistributedCountDownLatch.awaitSuspending(timeout: Duration): Boolean {
    val wait = timeout.toJavaWait("timeout")
    if (timeout.isInfinite()) {
        awaitSuspending()
        return true
    }
    return awaitAsync(wait).awaitValue()
}

/** Counts down without blocking a thread. */
public suspend fun DistributedCountDownLatch.countDownSuspending() {
    countDownAsync().awaitValue()
}
