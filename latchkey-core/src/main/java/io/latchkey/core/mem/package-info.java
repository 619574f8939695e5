/**
 * The in-memory backend, {@code mem://<server>}: an in-process lock server shared by every client of the same
 * server name in the JVM, with fencing counters, server-side expiry, FIFO waiters woken by futures, local hand-off,
 * batched renewal, read-write locks, semaphores and latches. It is the reference implementation the TCK is checked
 * against, and a test double for engine tests ({@link io.latchkey.core.mem.MemLockClient#setServerAvailable}).
 */
package io.latchkey.core.mem;
