package io.latchkey.file;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;

/**
 * Child process of {@link FileLockClientTest}: {@code KindHolderMain <uri> <fair|read|write> <name> <holdMillis>}
 * prints {@code WAITING}, takes that lock, prints {@code LOCKED <token>}, holds it for {@code holdMillis}, releases
 * it and prints {@code RELEASED}.
 */
public final class KindHolderMain {

    private KindHolderMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        try (LockClient client = LockClient.connect(args[0])) {
            DistributedLock lock = switch (args[1]) {
                case "fair" -> client.fairLock(args[2]);
                case "read" -> client.readWriteLock(args[2]).readLock();
                case "write" -> client.readWriteLock(args[2]).writeLock();
                default -> throw new IllegalArgumentException("kind " + args[1]);
            };
            System.out.println("WAITING " + client.clientId());
            System.out.flush();
            lock.lock();
            System.out.println("LOCKED " + lock.fencingToken().getAsLong());
            System.out.flush();
            Thread.sleep(Long.parseLong(args[3]));
            lock.unlock();
            System.out.println("RELEASED");
            System.out.flush();
        }
    }
}
