package io.latchkey.bench.jdbc;

import java.util.UUID;
import java.util.concurrent.locks.Lock;
import javax.sql.DataSource;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Spring Integration's {@code JdbcLockRegistry} over {@code DefaultLockRepository}, wired by hand the way a Spring
 * context would, with its defaults (100 ms between tries, 10 s time to live).
 */
final class SpringJdbcContender implements SqlContender {

    static final String DDL = "CREATE TABLE IF NOT EXISTS INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100) NOT NULL,"
            + " CLIENT_ID CHAR(36), CREATED_DATE TIMESTAMP NOT NULL, CONSTRAINT INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))";

    private final DefaultLockRepository repository;
    private final JdbcLockRegistry registry;

    SpringJdbcContender(DataSource dataSource) {
        repository = new DefaultLockRepository(dataSource, UUID.randomUUID().toString());
        repository.setTransactionManager(new DataSourceTransactionManager(dataSource));
        repository.setCheckDatabaseOnStart(false);
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        repository.start();
        registry = new JdbcLockRegistry(repository);
    }

    @Override
    public String name() {
        return "Spring JdbcLockRegistry";
    }

    @Override
    public Lock lock(String name) {
        return registry.obtain(name);
    }

    @Override
    public void close() {
        repository.stop();
        repository.close();
    }
}
