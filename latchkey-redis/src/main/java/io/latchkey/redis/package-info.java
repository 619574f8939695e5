/**
 * The Redis backend: {@link io.latchkey.redis.RedisLockClient}, a reentrant lock on Redis through Lettuce whose
 * data layout and unlock channel are those of Redisson's {@code RLock}, with fencing tokens from a counter key in
 * the same cluster slot, one EVALSHA per acquire and release, and waiters woken over one multiplexed pub/sub
 * connection per client. Connect with {@code LockClient.connect("redis://host:6379")} (a Redis Cluster:
 * {@code "redis-cluster://host:7000,host:7001"}) or wrap an application's Lettuce client with
 * {@link io.latchkey.redis.RedisLockClient#create(io.lettuce.core.RedisClient)} or
 * {@link io.latchkey.redis.RedisLockClient#create(io.lettuce.core.cluster.RedisClusterClient)}.
 */
package io.latchkey.redis;
