package io.latchkey.cli;

import java.sql.Connection;
import java.time.Duration;

/**
 * No protection: read the stock, place the order, write the stock back. Between read and write other buyers read
 * the same stock, so more orders are placed than there were items (and decrements are lost).
 */
final class NoLockStrategy implements SaleStrategy {

    private final Duration pause;

    NoLockStrategy(Duration pause) {
        this.pause = pause;
    }

    @Override
    public String name() {
        return "none";
    }

    @Override
    public String description() {
        return "No lock: read stockCount, insert the order, write stockCount - 1. Concurrent buyers read the same "
                + "stock, so the sale oversells.";
    }

    @Override
    public Node openNode(int index, long goodId) {
        return new Node() {
            @Override
            public Purchase buy(Connection db, int buyer) throws Exception {
                return CriticalSection.readModifyWrite(db, goodId, buyer, pause, -1);
            }

            @Override
            public void close() {
            }
        };
    }
}
