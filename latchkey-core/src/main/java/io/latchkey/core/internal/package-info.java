/**
 * The lock engine behind {@link io.latchkey.core.AbstractLockClient}: per-name local state ({@code NameState}: local
 * owners, the FIFO of local waiters, the single remote waiter, hand-off), holds and leases, the batched watchdog,
 * and the view classes that implement the public lock interfaces. Not an API: only
 * {@link io.latchkey.core.internal.LockEngine} is public, for {@code AbstractLockClient}. See
 * {@code docs/concurrency.md} for threads and locking.
 */
package io.latchkey.core.internal;
