package io.latchkey.kotlin

import kotlin.time.Duration
import kotlin.time.toJavaDuration

/**
 * A wait: a negative one is zero (a single attempt, as in `java.util.concurrent`); [Duration.INFINITE] saturates
 * (the engine treats it as no deadline).
 */
@Suppress("UNUSED_PARAMETER") // kept: the compiled signature is in the public-API listing
internal fun Duration.toJavaWait(what: String = "waitTime"): java.time.Duration {
    if (isNegative()) return java.time.Duration.ZERO
    return if (isInfinite()) FOREVER else toJavaDuration()
}

/** A lease time: positive and finite; `null` stands for a watchdog-renewed lease and is passed on as such. */
internal fun Duration?.toJavaLease(): java.time.Duration? {
    if (this == null) return null
    require(isPositive() && isFinite()) {
        "leaseTime must be positive and finite but was $this (null means a watchdog-renewed lease)"
    }
    return toJavaDuration()
}

/** Longer than any wait that ends: the Java API's waits saturate at this. */
internal val FOREVER: java.time.Duration = java.time.Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L)

/** One round of an unbounded wait through a timed call: a day, then again (see [acquireSuspending]). */
internal val LONG_WAIT: java.time.Duration = java.time.Duration.ofDays(1)
