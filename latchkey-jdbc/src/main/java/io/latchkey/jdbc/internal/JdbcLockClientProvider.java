package io.latchkey.jdbc.internal;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.jdbc.JdbcLockClient;
import io.latchkey.jdbc.JdbcOptions;
import io.latchkey.spi.LockClientProvider;
import java.util.List;

/**
 * Lets {@link LockClient#connect(String, ClientOptions)} open {@code jdbc:postgresql:}, {@code jdbc:mariadb:},
 * {@code jdbc:mysql:} and {@code jdbc:h2:} URLs: a lease-table client on a pool of at most 8 connections, with
 * the default {@link JdbcOptions}.
 */
public final class JdbcLockClientProvider implements LockClientProvider {

    static final int POOL_SIZE = 8;

    @Override
    public List<String> uriPrefixes() {
        return List.of("jdbc:postgresql:", "jdbc:mariadb:", "jdbc:mysql:", "jdbc:h2:");
    }

    @Override
    public LockClient create(String uri, ClientOptions options) {
        return JdbcLockClient.create(uri, POOL_SIZE, options, JdbcOptions.defaults());
    }
}
