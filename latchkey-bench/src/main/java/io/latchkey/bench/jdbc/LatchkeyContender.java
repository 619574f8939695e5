package io.latchkey.bench.jdbc;

import io.latchkey.jdbc.JdbcLockClient;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;

/** Latchkey's lease-table lock (watchdog mode) on the shared data source. */
final class LatchkeyContender implements SqlContender {

    private final JdbcLockClient client;

    LatchkeyContender(DataSource dataSource) {
        this.client = JdbcLockClient.create(dataSource);
    }

    @Override
    public String name() {
        return "Latchkey JdbcLockClient";
    }

    @Override
    public Lock lock(String name) {
        return client.lock(name);
    }

    @Override
    public void close() {
        client.close();
    }
}
