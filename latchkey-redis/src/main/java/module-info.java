/**
 * The Redis backend ({@code redis://}, {@code rediss://}, {@code redis-sentinel://}, {@code redis-cluster://}) on
 * Lettuce. {@code io.latchkey.redis} is the client package; its factories take Lettuce types, hence
 * {@code requires transitive lettuce.core}.
 */
module io.latchkey.redis {
    requires transitive io.latchkey;
    requires io.latchkey.core;
    requires transitive lettuce.core;
    requires io.netty.buffer;
    requires io.netty.handler;
    requires org.slf4j;

    exports io.latchkey.redis;

    provides io.latchkey.spi.LockClientProvider with io.latchkey.redis.RedisLockClientProvider;
}
