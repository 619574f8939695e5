package io.latchkey.bench.jdbc;

import java.util.concurrent.locks.Lock;

/** One lock implementation under test: a factory of {@link Lock}s by name, one "process" (client) each. */
interface SqlContender extends AutoCloseable {

    /** The name in the report. */
    String name();

    /** The lock {@code name} as seen by this client. */
    Lock lock(String name);

    @Override
    void close();
}
