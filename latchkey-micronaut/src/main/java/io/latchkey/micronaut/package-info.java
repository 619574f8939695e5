/**
 * Latchkey for Micronaut 4: the application's {@link io.latchkey.LockClient} bean from {@code latchkey.*},
 * {@link io.latchkey.micronaut.Locked} around advice, {@link io.latchkey.micronaut.LockedSchedule} for
 * {@code @Scheduled} methods that run on one instance per tick, a health indicator and Micrometer meters.
 */
package io.latchkey.micronaut;
