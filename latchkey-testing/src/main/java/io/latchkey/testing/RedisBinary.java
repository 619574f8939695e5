package io.latchkey.testing;

import java.nio.file.Path;
import java.util.Locale;

/**
 * The server binary the Redis fixtures ({@link RedisServer}, {@link RedisSentinelSetup}, {@link RedisClusterSetup})
 * start: {@code redis-server}, or {@code valkey-server} (Valkey 8, which reads the same configuration and speaks the
 * same protocol). The default is {@link #configured()}: the system property {@value #PROPERTY} ({@code redis} or
 * {@code valkey}), so that one Maven run, {@code -Dlatchkey.redis.server=valkey}, moves every Redis test to Valkey.
 *
 * <p>A missing binary fails the test with its install command; it is never skipped.
 */
public enum RedisBinary {

    /** {@code redis-server} (Debian's package of the same name). */
    REDIS("redis-server", "sudo apt-get install redis-server"),

    /**
     * {@code valkey-server} 8.0: on Debian 12 from the backports suite, which must be in the apt sources first (the
     * install script adds it); Debian 13 has it in its main suite.
     */
    VALKEY("valkey-server", "sudo apt-get install -t bookworm-backports valkey-server"
            + " (Debian 12, with bookworm-backports in the apt sources)");

    /** The system property that picks the binary: {@code redis} (the default) or {@code valkey}. */
    public static final String PROPERTY = "latchkey.redis.server";

    private final String binary;
    private final String installHint;

    RedisBinary(String binary, String installHint) {
        this.binary = binary;
        this.installHint = installHint;
    }

    /**
     * The binary {@value #PROPERTY} names; {@link #REDIS} when it is unset or empty.
     *
     * @throws IllegalArgumentException if the property names something else
     */
    public static RedisBinary configured() {
        String value = System.getProperty(PROPERTY, "").trim().toLowerCase(Locale.ROOT);
        switch (value) {
            case "":
            case "redis":
            case "redis-server":
                return REDIS;
            case "valkey":
            case "valkey-server":
                return VALKEY;
            default:
                throw new IllegalArgumentException(String.format(
                        "system property %s must be redis or valkey but was '%s'", PROPERTY, value));
        }
    }

    /** The executable's name, {@code redis-server} or {@code valkey-server}. */
    public String binary() {
        return binary;
    }

    /** The command that installs it. */
    public String installHint() {
        return installHint;
    }

    /**
     * The executable on the PATH.
     *
     * @throws IllegalStateException if it is not installed, naming {@link #installHint()}
     */
    public Path require() {
        return ServerProcess.requireBinary(binary, installHint);
    }
}
