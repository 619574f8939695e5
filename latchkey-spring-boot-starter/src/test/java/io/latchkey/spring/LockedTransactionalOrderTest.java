package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * {@code @Locked} and {@code @Transactional} on one method: the lock is taken before the transaction begins and
 * released after it commits (or rolls back), whichever annotation comes first, so that the next holder reads what
 * this one committed.
 */
class LockedTransactionalOrderTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class))
            .withPropertyValues("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri())
            .withUserConfiguration(TransactionConfig.class)
            .withBean(Orders.class);

    @Test
    void theLockIsTakenBeforeTheTransactionBeginsAndReleasedAfterItCommits() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            transactions.lock = context.getBean(LockClient.class).lock("order:7");

            orders.place(7);

            assertThat(transactions.events).containsExactly(
                    "begin, lock held: true", "method, lock held: true, transaction active: true",
                    "commit, lock held: true");
            assertThat(transactions.lock.isLocked()).as("released once the call returned").isFalse();
        });
    }

    @Test
    void theLockIsHeldUntilARollbackEnds() {
        runner.run(context -> {
            Orders orders = context.getBean(Orders.class);
            RecordingTransactionManager transactions = context.getBean(RecordingTransactionManager.class);
            transactions.lock = context.getBean(LockClient.class).lock("order:8");

            try {
                orders.fail(8);
            } catch (IllegalStateException expected) {
                // rolled back
            }

            assertThat(transactions.events).containsExactly(
                    "begin, lock held: true", "method, lock held: true, transaction active: true",
                    "rollback, lock held: true");
            assertThat(transactions.lock.isLocked()).isFalse();
        });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    static class TransactionConfig {
        @Bean
        DataSource dataSource() {
            JdbcDataSource h2 = new JdbcDataSource();
            h2.setURL("jdbc:h2:mem:locked-transactional;DB_CLOSE_DELAY=-1");
            return h2;
        }

        @Bean
        RecordingTransactionManager transactionManager(DataSource dataSource) {
            return new RecordingTransactionManager(dataSource);
        }
    }

    /** A real JDBC transaction manager that notes, at each step, whether the lock is held. */
    static class RecordingTransactionManager extends DataSourceTransactionManager {
        private static final long serialVersionUID = 1L;
        final transient List<String> events = new CopyOnWriteArrayList<>();
        transient io.latchkey.DistributedLock lock;

        RecordingTransactionManager(DataSource dataSource) {
            super(dataSource);
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            events.add("begin, lock held: " + lock.isLocked());
            super.doBegin(transaction, definition);
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            super.doCommit(status);
            events.add("commit, lock held: " + lock.isLocked());
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            super.doRollback(status);
            events.add("rollback, lock held: " + lock.isLocked());
        }
    }

    /** The two annotations in both orders: the order of annotations does not order the proxies. */
    static class Orders {
        private final RecordingTransactionManager transactions;

        Orders(RecordingTransactionManager transactions) {
            this.transactions = transactions;
        }

        @Locked(name = "'order:' + #id")
        @Transactional
        public void place(int id) {
            note();
        }

        @Transactional
        @Locked(name = "'order:' + #id")
        public void fail(int id) {
            note();
            throw new IllegalStateException("rolled back");
        }

        private void note() {
            transactions.events.add("method, lock held: " + transactions.lock.isLocked() + ", transaction active: "
                    + TransactionSynchronizationManager.isActualTransactionActive());
        }
    }
}
