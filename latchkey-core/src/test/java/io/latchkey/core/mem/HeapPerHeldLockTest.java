package io.latchkey.core.mem;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.TimeSource;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Client heap per held lock: a client holds many distinct locks of the in-memory backend at once, and the heap that
 * costs the client (the engine's holds, per-name state, renewal and lookup structures, the grants) stays within a
 * bound.
 *
 * <p>How the in-memory server's own share is separated: the same number of locks is then taken on a fresh in-memory
 * server directly through its ops (no engine), the grants dropped; the heap that costs is the server's share
 * (entries, fencing counters, server holds). The client's share is the first figure minus the second. The names are
 * allocated before either measurement and kept alive throughout: they are the application's strings, counted in
 * neither.
 */
class HeapPerHeldLockTest {

    private static final int LOCKS = 100_000;
    /**
     * Measured on JDK 17 (G1, compressed oops): 298 bytes per thread-owned lock (the name state with its lock, the
     * hold, the grant, the map entries; a name only ever held by one waiter at a time makes no local queue). The bound
     * keeps a 5 % margin for the collector's noise and JDK differences.
     */
    private static final long THREAD_BOUND_BYTES = 315;
    /**
     * A lease costs about 85 bytes more, measured 383 bytes: its own owner id ({@code clientId:lease-N}, N in base 36,
     * 47 characters here; the in-memory server keeps the same string, counted here). The hold itself is the
     * {@code LockLease} handle the caller holds, no object of its own. The bound is the project's goal for a held lock
     * (a 4 % margin).
     */
    private static final long LEASE_BOUND_BYTES = 400;

    @Test
    void aHeldLockCostsTheClientLittleHeap() throws Exception {
        String[] names = new String[LOCKS];
        for (int i = 0; i < LOCKS; i++) {
            names[i] = "heap-" + i;
        }
        long threadOwned = perLock(names, false);
        long leases = perLock(names, true);
        long server = serverPerLock(names);
        long engineThread = threadOwned - server;
        long engineLease = leases - server;
        System.out.printf("heap per held lock: thread-owned %d B, lease %d B (client and server); server %d B; "
                + "client: thread-owned %d B, lease %d B%n", threadOwned, leases, server, engineThread, engineLease);
        assertThat(engineThread).as("client heap per held thread-owned lock").isLessThanOrEqualTo(THREAD_BOUND_BYTES);
        assertThat(engineLease).as("client heap per held lease").isLessThanOrEqualTo(LEASE_BOUND_BYTES);
    }

    /** Heap per lock while one client holds all of {@code names} (client and server together). */
    private static long perLock(String[] names, boolean leases) throws Exception {
        String serverName = "heap-" + UUID.randomUUID();
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofMinutes(10)).build();
        LockLease[] held = leases ? new LockLease[names.length] : null;
        try (MemLockClient client = MemLockClient.create(serverName, options)) {
            client.lock("warm-up").lock();
            client.lock("warm-up").unlock();
            long before = usedAfterGc();
            for (int i = 0; i < names.length; i++) {
                DistributedLock lock = client.lock(names[i]);
                if (leases) {
                    held[i] = lock.acquire();
                } else {
                    lock.lock();
                }
            }
            long after = usedAfterGc();
            for (int i = 0; i < names.length; i++) {
                if (leases) {
                    held[i].release();
                } else {
                    client.lock(names[i]).unlock();
                }
            }
            return (after - before) / names.length;
        }
    }

    /** Heap per lock that the in-memory server alone keeps for {@code names} held (taken through its ops). */
    private static long serverPerLock(String[] names) throws InterruptedException {
        MemServer server = MemServer.attach("heap-server-" + UUID.randomUUID());
        {
            MemLockOps ops = new MemLockOps(server, "", io.latchkey.core.ArbitratedLockOps.Kind.LOCK, "heap-client");
            String owner = UUID.randomUUID() + ":1";
            ops.tryAcquire(new AcquireRequest("warm-up", owner, 600_000, true, AcquireRequest.NO_DEADLINE,
                    TimeSource.SYSTEM), null).join();
            long before = usedAfterGc();
            for (String name : names) {
                assertThat(ops.tryAcquire(new AcquireRequest(name, owner, 600_000, true, AcquireRequest.NO_DEADLINE,
                        TimeSource.SYSTEM), null).join().isGranted()).isTrue();
            }
            long after = usedAfterGc();
            return (after - before) / names.length;
        }
    }

    private static long usedAfterGc() throws InterruptedException {
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(50);
            used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
