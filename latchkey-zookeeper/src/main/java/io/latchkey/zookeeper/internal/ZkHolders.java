package io.latchkey.zookeeper.internal;

import io.latchkey.LockHolder;
import io.latchkey.core.Grant;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.apache.zookeeper.data.Stat;

/** Reads a lock node's data ({@link ZkLockOps#nodeData}) and stat as the {@link LockHolder} it describes. */
public final class ZkHolders {

    private ZkHolders() {
    }

    /**
     * The holder a lock node describes.
     *
     * @param data the node's data
     * @param stat the node's stat
     * @param mine this client's grant of the node, whose token is exact, or {@code null}
     * @param waiters how many nodes queue behind it
     * @return the holder: its token from {@code mine}, else the node's token line, else its last write's zxid
     */
    public static LockHolder holder(byte[] data, Stat stat, Grant mine, int waiters) {
        String[] lines = lines(data);
        long written = field(lines, ZkLockOps.TOKEN);
        long token = mine != null ? mine.fencingToken() : written >= 0 ? written
                : stat.getMzxid() != stat.getCzxid() ? stat.getMzxid() : stat.getCzxid();
        return new LockHolder(owner(lines, stat), clientName(lines), Optional.of(Instant.ofEpochMilli(stat.getMtime())),
                Optional.empty(), OptionalLong.of(token), OptionalInt.of(waiters));
    }

    /** The {@code client=} line of a node's data, or {@link LockHolder#UNKNOWN_CLIENT} (Curator, an older client). */
    public static String clientName(String[] lines) {
        String name = text(lines, ZkLockOps.CLIENT);
        return name == null || name.isEmpty() ? LockHolder.UNKNOWN_CLIENT : name;
    }

    /** A node's data as lines. */
    public static String[] lines(byte[] data) {
        return (data == null ? "" : new String(data, StandardCharsets.UTF_8)).split("\n", -1);
    }

    /** The number after {@code prefix} on one of {@code lines} (not the first, the owner), or -1. */
    public static long field(String[] lines, String prefix) {
        String text = text(lines, prefix);
        try {
            return text == null ? -1 : Long.parseLong(text.strip());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    private static String text(String[] lines, String prefix) {
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].startsWith(prefix)) {
                return lines[i].substring(prefix.length());
            }
        }
        return null;
    }

    /** The first line, or the session for a node whose data is not an owner id (Curator writes the client's IP). */
    public static String owner(String[] lines, Stat stat) {
        return lines[0].isEmpty() || lines[0].chars().anyMatch(Character::isISOControl)
                ? "session 0x" + Long.toHexString(stat.getEphemeralOwner()) : lines[0];
    }
}
