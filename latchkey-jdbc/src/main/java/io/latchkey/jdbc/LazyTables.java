package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Tables created the first time a client uses them, not when it starts: the counted primitives' tables
 * ({@link CountTableSql}) with a semaphore, permit-expirable semaphore or latch, the fenced store's with its first
 * call. A client that only locks needs no more than the lease table, and a schema managed by hand
 * ({@link JdbcOptions#createTable()} off) needs these tables only for the primitives it uses. Idempotent and safe
 * when several clients start at once.
 */
final class LazyTables {

    /** One table: its name, a query that runs only if it exists with the expected columns, and its DDL. */
    record Table(String name, String probe, String ddl) {
    }

    private final JdbcRunner runner;
    private final String what;
    private final boolean create;
    private final List<Table> tables;
    private final AtomicReference<CompletableFuture<Void>> ready = new AtomicReference<>();

    /** @param what whose tables these are, in messages ("of the semaphores and latches") */
    LazyTables(JdbcRunner runner, String what, boolean create, Table... tables) {
        this.runner = runner;
        this.what = what;
        this.create = create;
        this.tables = List.of(tables);
    }

    /**
     * Completes when every table exists; checked (and created) once per client. A failed check (the database was
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
                runner.async("check the tables " + what, c -> {
                    for (Table t : tables) {
                        ensure(c, t);
                    }
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

    /** Whether the tables were found or created (the reapers run only then). */
    boolean isReady() {
        CompletableFuture<Void> current = ready.get();
        return current != null && current.isDone() && !current.isCompletedExceptionally();
    }

    private void ensure(Connection c, Table t) throws SQLException {
        if (LeaseTableSchema.usable(c, t.probe())) {
            return;
        }
        LeaseTableSchema.missing(create, "the table " + t.name() + " " + what, runner, t.ddl());
        try {
            LeaseTableSchema.execute(c, t.ddl());
        } catch (SQLException e) {
            // Another client created it at the same moment (PostgreSQL can report a duplicate despite IF NOT EXISTS).
            if (!LeaseTableSchema.usable(c, t.probe())) {
                throw e;
            }
        }
    }
}
