package io.latchkey.spring;

import io.latchkey.LockLostException;
import java.util.function.Supplier;

/**
 * The application's {@link LatchkeyShutdown}, looked up on first use and kept (so that nothing is looked up in a
 * closing context), or {@code null} when there is none (interceptors built outside the auto-configuration).
 */
final class ShutdownRef {

    /** The reason Latchkey gives a hold that ends because its own client closed. */
    private static final String CLIENT_CLOSED = "client closed";

    private final Supplier<LatchkeyShutdown> lookup;
    private volatile LatchkeyShutdown found;

    ShutdownRef(Supplier<LatchkeyShutdown> lookup) {
        this.lookup = lookup;
    }

    LatchkeyShutdown get() {
        LatchkeyShutdown s = found;
        if (s == null) {
            try {
                s = lookup.get();
            } catch (RuntimeException closing) {
                return null;
            }
            found = s;
        }
        return s;
    }

    /** Whether {@code lost} reports a hold that ended because this application's own lock client closed. */
    static boolean closedByUs(LockLostException lost) {
        String message = lost.getMessage();
        return message != null && message.endsWith(": " + CLIENT_CLOSED);
    }
}
