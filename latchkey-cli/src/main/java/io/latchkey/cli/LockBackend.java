package io.latchkey.cli;

import io.latchkey.LockClient;
import java.time.Duration;

/** A lock backend the demo runs against: its URI, a short label for the table, and how to open a client. */
final class LockBackend {

    private final String uri;
    private final String label;
    private final String description;
    private final Duration timeout;

    LockBackend(String uri, String label, String description, Duration timeout) {
        this.uri = Secrets.register(uri);
        this.label = label;
        this.description = description;
        this.timeout = timeout;
    }

    String uri() {
        return uri;
    }

    String label() {
        return label;
    }

    String description() {
        return description;
    }

    /** A new client, as a separate node would have. */
    LockClient open() {
        return Connector.open(uri, timeout);
    }
}
