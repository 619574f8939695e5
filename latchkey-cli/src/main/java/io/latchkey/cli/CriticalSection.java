package io.latchkey.cli;

import io.latchkey.cli.SaleStrategy.Purchase;
import io.latchkey.cli.SaleStrategy.Result;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The purchase that locks protect, as flash-sale code usually writes it: read the stock, create the order, write the new stock.
 * The pause between reading and writing stands for the work a real service does there (pricing, a call to the
 * payment service); it is what makes the race visible.
 */
final class CriticalSection {

    private CriticalSection() {
    }

    static Purchase readModifyWrite(Connection db, long goodId, int buyer, Duration pause, long acquireNanos)
            throws SQLException, InterruptedException {
        int stock = FlashSaleDatabase.readStock(db, goodId, false);
        if (stock <= 0) {
            return new Purchase(Result.SOLD_OUT, 0, acquireNanos);
        }
        FlashSaleDatabase.placeOrder(db, goodId, buyer);
        pause(pause);
        FlashSaleDatabase.writeStock(db, goodId, stock - 1);
        return new Purchase(Result.ORDERED, 0, acquireNanos);
    }

    /** For callbacks that may not throw {@link InterruptedException}; an interrupt ends the pause early. */
    static void pauseUninterruptibly(Duration pause) {
        if (!pause.isZero()) {
            java.util.concurrent.locks.LockSupport.parkNanos(pause.toNanos());
        }
    }

    static void pause(Duration pause) throws InterruptedException {
        if (!pause.isZero()) {
            Thread.sleep(pause.toMillis(), (int) (pause.toNanos() % 1_000_000));
        }
    }
}
