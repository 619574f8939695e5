package io.latchkey.core.internal;

import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.Objects;

/**
 * Identity of a {@link NameState}: one per backend operation set, name and kind. A lock's key names its ops (plain,
 * fair, read or write); a counted resource's key names its ops and its kind, which also types what a waiter of it gets
 * ({@code R}: {@code Boolean} for a semaphore's permits and a latch at zero, the {@link io.latchkey.core.Grant} of a
 * leased permit).
 */
sealed interface NameKey permits NameKey.Lock, NameKey.Count {

    String name();

    /** A lock's key: its waiters get a {@link Hold}. */
    record Lock(RemoteLockOps ops, String name) implements NameKey {
    }

    /** A counted resource's key: its waiters get what {@code kind} makes of a success. */
    record Count<R>(RemoteCountOps ops, String name, CountKinds<R> kind) implements NameKey {
        public Count {
            Objects.requireNonNull(kind, "kind");
        }
    }
}
