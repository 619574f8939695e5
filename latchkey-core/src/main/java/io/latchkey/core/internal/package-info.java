/**
 * The lock engine behind {@link io.latchkey.core.AbstractLockClient}: the local half of every primitive, one job per
 * file. One waiting machine for every primitive ({@code NameState}: per name, kind and client, one state machine whose
 * fields only its transitions change; its base classes {@code NameWaiters}, the FIFO of local waiters and the waiter
 * at the backend, and {@code NameHolds}, a lock's local owners; keyed by {@code NameKey}; each {@code Waiter}'s states
 * with their allowed moves written once), with what differs per kind, a policy ({@code WaitKind}:
 * {@code LockKind} for locks, {@code CountKinds} for semaphores, permits and latches); how a wait starts
 * ({@code WaitStart}), single attempts, re-checks and the name's subscription ({@code WaitAttempts}), how a wait
 * ends without a grant ({@code WaitEnds}), a lock's release and local hand-off ({@code LockRelease}), a
 * semaphore's local hand-off ({@code CountHandOff}). Shared with the callers: the caller's side of a wait and the
 * give-back of what raced a give-up
 * ({@code CallerWaits}), deadlines ({@code Waits}), the subscription ({@code ChangeSubscription}). Also holds and
 * leases, the batched watchdog, and the view classes that implement the public lock interfaces. Not an API: only
 * {@link io.latchkey.core.internal.LockEngine} is public, for {@code AbstractLockClient}. See
 * {@code docs/concurrency.md} for threads and locking.
 */
package io.latchkey.core.internal;
