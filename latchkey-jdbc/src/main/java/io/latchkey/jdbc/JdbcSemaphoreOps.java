package io.latchkey.jdbc;

import io.latchkey.core.AnsweredTakes;
import io.latchkey.core.CountKind;
import java.sql.Array;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The remote half of the SQL semaphore: one row of the counts table per semaphore (kind {@code semaphore}) holding
 * its free permits. Taking is one conditional {@code UPDATE} ({@code … WHERE … AND count_value >= n}): all or none,
 * decided by the database on the row's latest committed value, so concurrent takers never over-draw. Permits have no
 * owner and no lease: a client that crashes keeps its permits taken, as with {@link java.util.concurrent.Semaphore}.
 *
 * <h2>A take whose answer is lost</h2>
 * A take may commit while its answer never reaches the client; nobody would return those permits. So a take also
 * records itself in the same transaction (one data-modifying {@code WITH} statement on PostgreSQL): a row of the
 * permits table under the namespace's reserved name ({@link CountTableSql#takeRecords}), the attempt id as
 * {@code permit_id}, the permits as {@code token}, ending {@value #RECORD_MILLIS} ms later by the database's clock.
 * Once the answer arrives, this client's next statement on the semaphore deletes the record. When the take fails
 * without an answer, the engine asks for {@link #cleanUpTake}: after the take's own work ended (the operation timeout
 * ended only the wait for its answer), one transaction deletes the live record and, only if there was one, adds its
 * permits back — at most once, and only if the take happened. Records of dead clients are reaped once ended.
 */
final class JdbcSemaphoreOps extends JdbcCountOps {
    private static final Logger log = LoggerFactory.getLogger(JdbcSemaphoreOps.class);
    /** How long a take's record lives: the longest a give-back after a lost answer may take. */
    static final long RECORD_MILLIS = 300_000;
    /** The most record deletes one statement carries; the rest wait for the next one. */
    static final int DELETES_PER_STATEMENT = 64;

    private final String records;
    /** Per semaphore name: the take ids whose answer arrived, for the next statement on that name to delete. */
    private final AnsweredTakes answered = new AnsweredTakes();

    JdbcSemaphoreOps(Tables t) {
        super(t, CountKind.SEMAPHORE);
        this.records = CountTableSql.takeRecords(namespace);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        String key = rowKey(name);
        return run("read the permits of", name, c -> {
            Long v = count(c, sql.selectCount, key);
            return v == null ? 0 : clamp(v);
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return setCountOnce(name, permits);
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return add("add permits to", name, delta);
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits, String id) {
        startReaper("ended semaphore take records", c -> execute(c, sql.deleteExpiredPermits, records));
        String key = rowKey(name);
        CompletableFuture<Boolean> taken = run("take permits of", name, c -> runner.attempt(id, c, x -> {
            List<String> done = answered.drain(name, DELETES_PER_STATEMENT);
            try {
                if (sql.takeRecorded != null) {
                    return execute(c, sql.takeRecorded, records, ids(c, done), (long) permits, kind, key,
                            (long) permits, records, id, (long) permits, RECORD_MILLIS) == 1;
                }
                return inTransaction(c, tx -> {
                    boolean t = execute(tx, sql.takeFromCount, (long) permits, kind, key, (long) permits) == 1;
                    if (t) {
                        execute(tx, sql.insertPermit, records, id, (long) permits, RECORD_MILLIS, false);
                    }
                    deleteRecords(tx, done);
                    return t;
                });
            } catch (SQLException | RuntimeException e) {
                answered.requeue(name, done); // deleting a record twice does no harm
                throw e;
            }
        }));
        taken.thenAccept(took -> {
            if (took) {
                // only a take whose caller heard of it: a late one needs its record for the clean-up
                answered.add(name, id);
            }
        });
        return taken;
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return add("return permits to", name, permits);
    }

    /** {@code addPermits} and {@code give}: {@link #addToCount}, also deleting the records of answered takes. */
    private CompletableFuture<Void> add(String op, String name, int delta) {
        String key = rowKey(name);
        return run(op, name, c -> {
            List<String> done = answered.drain(name, DELETES_PER_STATEMENT);
            try {
                insertUnlessUpdated(c, key, delta, sql.addToCountDeleting != null && !done.isEmpty()
                        ? execute(c, sql.addToCountDeleting, records, ids(c, done), (long) delta, kind, key)
                        : execute(c, sql.addToCount, (long) delta, kind, key));
            } catch (SQLException | RuntimeException e) {
                answered.requeue(name, done);
                throw e;
            }
            if (sql.addToCountDeleting == null) {
                try {
                    deleteRecords(c, done);
                } catch (SQLException e) {
                    // the permits were added: only the records wait for the next statement
                    answered.requeue(name, done);
                    log.debug("deleting {} take record(s) of semaphore '{}' failed: {}", done.size(), name,
                            e.toString());
                }
            }
            if (delta > 0) {
                wakeups.changed(c, wakeKey(name));
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        String key = rowKey(name);
        return run("drain the permits of", name, c -> inTransaction(c, tx -> {
            Long v = count(tx, sql.selectCountForUpdate, key);
            if (v == null || v <= 0) {
                return 0;
            }
            execute(tx, sql.setCount, 0L, kind, key);
            return clamp(v);
        }));
    }

    // ------------------------------------------------------------------------------------------ take records

    /** The take ids as a PostgreSQL array parameter. */
    private static Array ids(Connection c, List<String> ids) throws SQLException {
        return c.createArrayOf("varchar", ids.toArray());
    }

    /** Deletes the records of {@code ids}, one statement if there are any: databases without arrays. */
    private void deleteRecords(Connection c, List<String> ids) throws SQLException {
        if (ids.isEmpty()) {
            return;
        }
        execute(c, sql.deleteRecords(ids.size()), Stream.concat(Stream.of(records), ids.stream()).toArray());
    }

    /**
     * Deletes the take's record if it has not ended and, only if there was one, adds its permits back, in one
     * transaction, after the take's own work ended; whether permits were given back (not: the take never committed,
     * was given back already, or its record ended).
     */
    @Override
    public CompletableFuture<Boolean> cleanUpTake(String name, int permits, String id) {
        return runner.afterAttempt(id, () -> giveBack(name, permits, id));
    }

    private CompletableFuture<Boolean> giveBack(String name, int permits, String id) {
        String key = rowKey(name);
        return run("give back a take whose answer was lost of", name, c -> {
            boolean given = inTransaction(c, tx -> execute(tx, sql.releaseLivePermit, records, id) == 1
                    && execute(tx, sql.addToCount, (long) permits, kind, key) >= 0);
            if (given) {
                wakeups.changed(c, wakeKey(name));
                log.info("gave back {} permit(s) of semaphore '{}' taken by an attempt whose answer was lost", permits,
                        name);
            }
            return given;
        });
    }

}
