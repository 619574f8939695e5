package io.latchkey.spring;

import java.util.List;

/** Startup failure: neither {@code latchkey.uri} nor a usable bean says which backend to use. */
final class LockClientNotConfiguredException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final List<String> looked;

    LockClientNotConfiguredException(List<String> looked) {
        super("No Latchkey LockClient could be built: latchkey.uri is not set and " + String.join("; ", looked));
        this.looked = List.copyOf(looked);
    }

    List<String> looked() {
        return looked;
    }
}
