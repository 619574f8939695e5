package io.latchkey.cli;

import io.latchkey.testing.RedisServer;

/** The console on Redis in a browser; this class also saves the screenshot ({@code target/console.png}). */
class ConsoleRedisBrowserTest extends ConsoleBrowserTestBase {

    private final RedisServer redis = start();

    private static RedisServer start() {
        try {
            return RedisServer.standalone().start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    String uri() {
        return redis.uri();
    }

    @Override
    boolean screenshot() {
        return true;
    }

    @Override
    void stopServer() throws Exception {
        redis.close();
    }
}
