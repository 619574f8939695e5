/**
 * Project Reactor API over any {@link io.latchkey.LockClient}: start at {@link io.latchkey.reactor.ReactiveLockClient}.
 */
package io.latchkey.reactor;
