package io.latchkey.testing;

/** How a {@link RedisServer} is configured. */
record RedisServerConfig(String requirePass, String aclUser, String aclPassword, boolean tls, boolean appendOnly) {
}
