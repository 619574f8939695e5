/**
 * Leader election for every backend, built on the engine's locks: {@link io.latchkey.core.AbstractLockClient}
 * creates these; nothing here is public API.
 */
package io.latchkey.core.internal.election;
