package io.latchkey.testing;

/** How a {@link RedisServer} is configured. */
record RedisServerConfig(String requirePass, String aclUser, String aclPassword, String aclRules, boolean tls,
                         boolean appendOnly) {

    /** Every key, every channel, every command. */
    static final String ALL = "~* &* +@all";
}
