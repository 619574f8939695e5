package io.latchkey.jdbc;

import io.latchkey.core.CountKind;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the SQL count-down latch: a row of the counts table (kind {@code latch}) exists
 * while the latch is armed and holds its count; an open latch has no row, so opened latches leave nothing behind.
 * Arming is an {@code INSERT} (a unique-key violation means it is armed already). A count-down is one conditional
 * statement: {@code UPDATE … SET count_value = count_value - 1 WHERE … AND count_value > 1}, or, when the count is
 * 1, the {@code DELETE} that opens the latch (and wakes the waiters: {@code NOTIFY} on PostgreSQL); when neither
 * matched because another client changed the row in between, it tries again, so no count-down is lost and none is
 * applied twice. The count has no owner and no lease: an armed latch outlives its clients.
 */
final class JdbcCountDownLatchOps extends JdbcCountOps {

    JdbcCountDownLatchOps(Tables t) {
        super(t, CountKind.LATCH);
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        String key = rowKey(name);
        return run("arm", name, c -> insertCount(c, key, count)
                // a row left at 0 by an older writer counts as open
                || execute(c, sql.armIfOpen, count, kind, key) == 1);
    }

    @Override
    public CompletableFuture<Void> countDown(String name) {
        String key = rowKey(name);
        return run("count down", name, c -> {
            while (true) {
                if (execute(c, sql.countDownAboveOne, kind, key) == 1) {
                    return null;
                }
                if (execute(c, sql.deleteAtOne, kind, key) == 1) {
                    wakeups.changed(c, wakeKey(name));
                    return null;
                }
                if (count(c, sql.selectCount, key) == null) {
                    return null; // open: nothing to count down
                }
                // re-armed or counted down by another client between the two statements: look again
            }
        });
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        String key = rowKey(name);
        return run("read the count of", name, c -> {
            Long v = count(c, sql.selectCount, key);
            return v == null ? 0L : Math.max(0L, v);
        });
    }
}
