package io.latchkey.cli;

import io.latchkey.cli.SaleStrategy.Node;
import io.latchkey.cli.SaleStrategy.Purchase;
import io.latchkey.cli.SaleStrategy.Result;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one strategy: opens its simulated clients, starts every client's buyer threads (each with its own database
 * connection) on one signal, and counts what ended up in the database.
 */
final class SaleRunner {

    private final FlashSaleDatabase db;
    private final int stock;
    private final int buyers;
    private final int clients;
    private final int threadsPerClient;
    private final int segments;

    SaleRunner(FlashSaleDatabase db, int stock, int buyers, int clients, int threadsPerClient, int segments) {
        this.db = db;
        this.stock = stock;
        this.buyers = buyers;
        this.clients = clients;
        this.threadsPerClient = threadsPerClient;
        this.segments = segments;
    }

    SaleResult run(SaleStrategy strategy, long goodId, Progress progress) throws Exception {
        db.stockUp(goodId, stock, segments);
        List<Node> nodes = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        List<Latencies> latencies = new ArrayList<>();
        AtomicLong failedAttempts = new AtomicLong();
        AtomicInteger gaveUp = new AtomicInteger();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(clients * threadsPerClient);
        CountDownLatch go = new CountDownLatch(1);
        try {
            for (int c = 0; c < clients; c++) {
                nodes.add(strategy.openNode(c, goodId));
            }
            for (int c = 0; c < clients; c++) {
                // Buyers are dealt round-robin to clients, as a load balancer would.
                ConcurrentLinkedQueue<Integer> queue = new ConcurrentLinkedQueue<>();
                for (int b = c; b < buyers; b += clients) {
                    queue.add(b);
                }
                Node node = nodes.get(c);
                for (int t = 0; t < threadsPerClient; t++) {
                    Latencies mine = new Latencies();
                    latencies.add(mine);
                    Thread thread = new Thread(() -> buyLoop(node, strategy.connectionPerThread(), queue, mine,
                            failedAttempts, gaveUp, firstError, ready, go, progress),
                            "latchkey-demo-" + strategy.name() + "-c" + c + "-t" + t);
                    thread.setDaemon(true);
                    threads.add(thread);
                }
            }
            for (Thread thread : threads) {
                thread.start();
            }
            ready.await();
            long start = System.nanoTime();
            go.countDown();
            for (Thread thread : threads) {
                thread.join();
            }
            long elapsed = System.nanoTime() - start;
            Latencies all = Latencies.merge(latencies);
            Throwable error = firstError.get();
            java.util.OptionalInt kept = strategy.finalStock(goodId);
            int finalStock = kept.isPresent() ? kept.getAsInt() : db.stock(goodId, strategy.segmented());
            return new SaleResult(strategy.name(), strategy.description(), stock, buyers, db.orders(goodId),
                    finalStock, failedAttempts.get(), gaveUp.get(), elapsed,
                    all.percentile(0.50), all.percentile(0.99),
                    error == null ? null : Secrets.mask(Connector.firstLine(String.valueOf(error))));
        } finally {
            for (Thread thread : threads) {
                thread.interrupt();
            }
            for (Node node : nodes) {
                try {
                    node.close();
                } catch (Exception e) {
                    firstError.compareAndSet(null, e);
                }
            }
        }
    }

    private void buyLoop(Node node, boolean ownConnection, ConcurrentLinkedQueue<Integer> queue, Latencies latencies,
            AtomicLong failedAttempts, AtomicInteger gaveUp, AtomicReference<Throwable> firstError,
            CountDownLatch ready, CountDownLatch go, Progress progress) {
        boolean counted = false;
        try (Connection connection = ownConnection ? db.connect() : null) {
            ready.countDown();
            counted = true;
            go.await();
            Integer buyer;
            while ((buyer = queue.poll()) != null) {
                try {
                    Purchase p = node.buy(connection, buyer);
                    failedAttempts.addAndGet(p.failedAttempts());
                    if (p.result() == Result.GAVE_UP) {
                        gaveUp.incrementAndGet();
                    }
                    if (p.acquireNanos() >= 0) {
                        latencies.record(p.acquireNanos());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    firstError.compareAndSet(null, e);
                    failedAttempts.incrementAndGet();
                    gaveUp.incrementAndGet();
                    if (connection != null && !connection.getAutoCommit()) {
                        connection.rollback();
                        connection.setAutoCommit(true);
                    }
                } finally {
                    progress.advance();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            firstError.compareAndSet(null, e);
        } finally {
            if (!counted) {
                // A thread that failed before the start must not keep the others waiting.
                ready.countDown();
            }
        }
    }
}
