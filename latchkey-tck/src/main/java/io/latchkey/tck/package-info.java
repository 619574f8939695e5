/**
 * The Latchkey TCK: abstract JUnit 5 contract tests, written only against the public {@code io.latchkey} API, that
 * every backend's test suite extends once per kind ({@code <Backend><Kind>TckTest}), implementing
 * {@link io.latchkey.tck.TckBase#newClient} and {@link io.latchkey.tck.TckBase#backendName}:
 *
 * <ul>
 * <li>{@link io.latchkey.tck.LockContractTck}: the thread-owned {@code Lock} API.</li>
 * <li>{@link io.latchkey.tck.LeaseContractTck}: leases as owners, timed/interrupted/asynchronous acquires.</li>
 * <li>{@link io.latchkey.tck.LeaseLifecycleTck}: fixed leases, the watchdog, loss, fencing, client close.</li>
 * <li>{@link io.latchkey.tck.ValidationTck}: names, durations, closed clients, URI schemes, capabilities.</li>
 * <li>{@link io.latchkey.tck.ConcurrencyStressTck}: exclusion under load, 10,000 virtual threads (JDK 21+).</li>
 * <li>{@link io.latchkey.tck.OutageTck}: the backend going away (hooks to stop and start it).</li>
 * <li>{@link io.latchkey.tck.MultiProcessTck}: a SIGKILLed holder JVM (backends with out-of-process state).</li>
 * <li>{@link io.latchkey.tck.LeaderElectionTck}: leader election (one leader per term, growing terms, hand-over,
 *     revocation, fencing) and {@code runWhileValid}; {@link io.latchkey.tck.LeaderElectionMultiProcessTck}: a
 *     SIGKILLed and a SIGSTOPped leader JVM.</li>
 * <li>{@link io.latchkey.tck.FairLockTck}, {@link io.latchkey.tck.ReadWriteLockTck},
 *     {@link io.latchkey.tck.SemaphoreTck}, {@link io.latchkey.tck.PermitExpirableSemaphoreTck},
 *     {@link io.latchkey.tck.CountDownLatchTck}: run when the backend lists the capability, skipped otherwise.</li>
 * </ul>
 */
package io.latchkey.tck;
