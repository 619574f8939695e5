package io.latchkey.jdbc;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Creates the counted primitives' tables ({@link CountTableSql}) the first time a client uses a semaphore,
 * permit-expirable semaphore or latch, not when it starts: a client that only locks needs no more than the lease
 * table, and a schema managed by hand ({@link JdbcOptions#createTable()} off) needs these tables only for the
 * primitives it uses. Idempotent and safe when several clients start at once.
 */
final class CountTableSchema {

    private final JdbcRunner runner;
    private final CountTableSql sql;
    private final String lockTable;
    private final boolean create;
    private final AtomicReference<CompletableFuture<Void>> ready = new AtomicReference<>();

    CountTableSchema(JdbcRunner runner, CountTableSql sql, String lockTable, boolean create) {
        this.runner = runner;
        this.sql = sql;
        this.lockTable = lockTable;
        this.create = create;
    }

    /**
     * Completes when both tables exist; checked (and created) once per client. A failed check (the database was
     * down, or a table is missing and {@code createTable} is off, with the DDL in the message) is tried again by the
     * next call.
     */
    CompletableFuture<Void> ready() {
        while (true) {
            CompletableFuture<Void> current = ready.get();
            if (current != null && !current.isCompletedExceptionally()) {
                return current;
            }
            CompletableFuture<Void> mine = new CompletableFuture<>();
            if (ready.compareAndSet(current, mine)) {
                runner.async("check the semaphore and latch tables " + sql.counts + ", " + sql.permits, c -> {
                    ensure(c, sql.probeCounts, CountTableSql.countTableDdl(sql.dialect, lockTable), sql.counts);
                    ensure(c, sql.probePermits, CountTableSql.permitTableDdl(sql.dialect, lockTable), sql.permits);
                    return null;
                }).whenComplete((v, e) -> {
                    if (e != null) {
                        mine.completeExceptionally(e);
                    } else {
                        mine.complete(null);
                    }
                });
                return mine;
            }
        }
    }

    /** Whether the tables were found or created (the reaper runs only then). */
    boolean isReady() {
        CompletableFuture<Void> current = ready.get();
        return current != null && current.isDone() && !current.isCompletedExceptionally();
    }

    private void ensure(java.sql.Connection c, String probe, String ddl, String table) throws java.sql.SQLException {
        if (LeaseTableSchema.usable(c, probe)) {
            return;
        }
        if (!create) {
            throw new IllegalStateException(String.format("the table %s of the semaphores and latches does not exist "
                    + "(or lacks the expected columns) in %s and createTable is off; create it with:%n%s", table,
                    runner.server(), ddl));
        }
        try {
            LeaseTableSchema.execute(c, ddl);
        } catch (java.sql.SQLException e) {
            // Another client created it at the same moment (PostgreSQL can report a duplicate despite IF NOT EXISTS).
            if (!LeaseTableSchema.usable(c, probe)) {
                throw e;
            }
        }
    }
}
