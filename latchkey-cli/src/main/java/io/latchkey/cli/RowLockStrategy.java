package io.latchkey.cli;

import io.latchkey.cli.SaleStrategy.Purchase;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The seeds' pessimistic lock: inside a transaction, {@code select stockCount … for update} locks the good's row
 * until commit, so buyers queue on the database. It holds a connection (and a database lock) for the whole
 * purchase.
 */
final class RowLockStrategy implements SaleStrategy {

    private final Duration pause;

    RowLockStrategy(Duration pause) {
        this.pause = pause;
    }

    @Override
    public String name() {
        return "db-pessimistic";
    }

    @Override
    public String description() {
        return "Row lock: begin; select stockCount … for update; insert the order; update stockCount; commit. "
                + "Buyers queue on the database row.";
    }

    @Override
    public Node openNode(int index, long goodId) {
        return new Node() {
            @Override
            public Purchase buy(Connection db, int buyer) throws Exception {
                db.setAutoCommit(false);
                try {
                    long t0 = System.nanoTime();
                    int stock = FlashSaleDatabase.readStock(db, goodId, true);
                    long acquired = System.nanoTime() - t0;
                    if (stock <= 0) {
                        db.rollback();
                        return new Purchase(Result.SOLD_OUT, 0, acquired);
                    }
                    FlashSaleDatabase.placeOrder(db, goodId, buyer);
                    CriticalSection.pause(pause);
                    FlashSaleDatabase.decrementStock(db, goodId);
                    db.commit();
                    return new Purchase(Result.ORDERED, 0, acquired);
                } catch (SQLException e) {
                    // A lock wait timeout or deadlock victim: the buyer gives up, as a shop would show "try again".
                    db.rollback();
                    return new Purchase(Result.GAVE_UP, 1, -1);
                } finally {
                    db.setAutoCommit(true);
                }
            }

            @Override
            public void close() {
            }
        };
    }
}
