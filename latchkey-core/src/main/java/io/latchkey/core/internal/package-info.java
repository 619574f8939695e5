/**
 * The lock engine behind {@link io.latchkey.core.AbstractLockClient}: the local half of every primitive, one job per
 * file. Locks: per-name local state ({@code NameState}: local owners, the FIFO of local waiters, the waiter at the
 * backend), how an acquire starts ({@code LockAcquire}), single attempts, re-checks and the name's subscription
 * ({@code LockAttempts}), how a wait ends without a grant ({@code LockWaitEnds}), release and local hand-off
 * ({@code LockRelease}). Counted resources: the waiting queue ({@code CountWaiters}) and what an attempt asks per
 * kind ({@code CountKinds}). Shared by both: the caller's side of a wait and the give-back of what raced a give-up
 * ({@code CallerWaits}), deadlines ({@code Waits}), the subscription ({@code ChangeSubscription}). Also holds and
 * leases, the batched watchdog, and the view classes that implement the public lock interfaces. Not an API: only
 * {@link io.latchkey.core.internal.LockEngine} is public, for {@code AbstractLockClient}. See
 * {@code docs/concurrency.md} for threads and locking.
 */
package io.latchkey.core.internal;
