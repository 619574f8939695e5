package io.latchkey.jdbc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Maps lock names to the databases' advisory-lock keys: PostgreSQL's 64-bit integers (the first 8 bytes of the
 * name's SHA-256) and MySQL/MariaDB's lock-name strings of at most 64 characters ({@code latchkey:} and 48 hex
 * digits of the SHA-256, which also sidesteps their case-insensitive comparison).
 *
 * <p>Two different names share a PostgreSQL key with probability about n²/2⁶⁵ for n names in use (about 3·10⁻⁸
 * for a million names), and then exclude each other: a liveness cost, never a safety one. Other code in the same
 * database that uses advisory locks with the same 64-bit keys would also exclude ours.
 */
final class AdvisoryKeys {

    private AdvisoryKeys() {
    }

    static long postgresKey(String key) {
        return ByteBuffer.wrap(sha256(key)).getLong();
    }

    static String mysqlKey(String key) {
        byte[] h = sha256(key);
        StringBuilder b = new StringBuilder("latchkey:");
        for (int i = 0; i < 24; i++) {
            b.append(Character.forDigit((h[i] >> 4) & 0xf, 16)).append(Character.forDigit(h[i] & 0xf, 16));
        }
        return b.toString();
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
