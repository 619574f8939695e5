/**
 * Spring Integration 7 adapter: {@link io.latchkey.spring.integration.LatchkeyLockRegistry}, a renewable, expirable
 * {@code LockRegistry} over any {@link io.latchkey.LockClient}.
 */
package io.latchkey.spring.integration;
