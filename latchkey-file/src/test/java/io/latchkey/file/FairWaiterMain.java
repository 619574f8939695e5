package io.latchkey.file;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;

/**
 * Child process of {@link FileLockClientTest}: {@code FairWaiterMain <uri> <name> <holdMillis>} prints
 * {@code WAITING}, takes the fair lock, prints {@code LOCKED <token>}, holds it for {@code holdMillis}, releases it
 * and prints {@code RELEASED}.
 */
public final class FairWaiterMain {

    private FairWaiterMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        try (LockClient client = LockClient.connect(args[0])) {
            DistributedLock lock = client.fairLock(args[1]);
            System.out.println("WAITING " + client.clientId());
            System.out.flush();
            lock.lock();
            System.out.println("LOCKED " + lock.fencingToken().getAsLong());
            System.out.flush();
            Thread.sleep(Long.parseLong(args[2]));
            lock.unlock();
            System.out.println("RELEASED");
            System.out.flush();
        }
    }
}
