package io.latchkey.cli;

import java.sql.Connection;

/**
 * One way of keeping a flash sale from overselling. A strategy opens one {@link Node} per simulated client (its own
 * lock client, as a separate service instance would have); the node's {@link Node#buy} runs on many threads at
 * once, each with its own database connection.
 */
interface SaleStrategy {

    /** The row label: {@code none}, {@code db-optimistic}, {@code lock:zookeeper}, … */
    String name();

    /** One sentence for the report: what protects the stock. */
    String description();

    /** Whether the stock lives in {@code seckill_good_segment} rather than {@code seckill_good}. */
    default boolean segmented() {
        return false;
    }

    /**
     * Whether each buyer thread needs a connection of its own; strategies that borrow from a pool of their own
     * say no, so that a shared database is not asked for twice the connections.
     */
    default boolean connectionPerThread() {
        return true;
    }

    /**
     * {@return the stock left after the run, if the strategy keeps it outside the database} Empty (the default): the
     * database's stock is the one to judge.
     */
    default java.util.OptionalInt finalStock(long goodId) {
        return java.util.OptionalInt.empty();
    }

    /** Opens the resources of simulated client number {@code index} (e.g. connects a lock client). */
    Node openNode(int index, long goodId) throws Exception;

    /** A simulated client. Thread-safe: many buyer threads call {@link #buy} at once. */
    interface Node extends AutoCloseable {

        /**
         * Buyer number {@code buyer} tries to order one item, on its thread's connection (auto-commit on entry), or
         * with {@code db == null} when the strategy said it needs no {@link #connectionPerThread()}.
         */
        Purchase buy(Connection db, int buyer) throws Exception;

        @Override
        void close() throws Exception;
    }

    /** What happened to one buyer. */
    enum Result { ORDERED, SOLD_OUT, GAVE_UP }

    /**
     * @param result the buyer's outcome
     * @param failedAttempts attempts that lost a race and were retried or abandoned (CAS conflicts, lock timeouts)
     * @param acquireNanos time spent obtaining the right to change the stock (lock wait, row-lock wait, or the
     *        retries until the CAS succeeded), or -1 when nothing was acquired
     */
    record Purchase(Result result, int failedAttempts, long acquireNanos) {
    }
}
