package io.latchkey.zookeeper.internal;

import io.latchkey.LockUnavailableException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.zookeeper.KeeperException;

/**
 * The chroot of a {@code zookeeper://host:port/chroot} URI, made when it is missing. ZooKeeper resolves every path of
 * a chrooted handle below the chroot but creates nothing above it: without the chroot node each create fails with
 * {@code NoNode}, and a lock attempt would retry until its timeout. The node (and its missing parents) is created
 * through a handle of its own without the chroot, with the client's credentials; like the other ancestors the
 * client shares with other identities it stays open (creator-only ACLs are for the lock nodes below it).
 */
public final class ZkChroot {

    private ZkChroot() {
    }

    /**
     * Makes {@code uri}'s chroot if {@code chrooted} (connected) does not see it.
     *
     * @param chrooted the client's connected framework on the chrooted connect string
     * @param uri the URI, whose path is the chroot (empty for none)
     * @param deadlineNanos when to give up ({@link System#nanoTime()})
     * @throws LockUnavailableException if it is missing and cannot be made in time, or the server refuses it
     * @throws InterruptedException if interrupted while waiting for the servers
     */
    public static void ensure(CuratorFramework chrooted, ZkUri uri, long deadlineNanos)
            throws InterruptedException {
        String chroot = uri.server().path();
        if (chroot == null || chroot.isEmpty() || "/".equals(chroot)) {
            return;
        }
        try {
            if (chrooted.checkExists().forPath("/") != null) {
                return;
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new LockUnavailableException(String.format("ZooKeeper %s: could not check the chroot '%s': %s",
                    uri.hosts(), chroot, e), e);
        }
        long left = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        CuratorFrameworkFactory.Builder builder = CuratorFrameworkFactory.builder()
                .connectString(uri.hosts())
                .connectionTimeoutMs((int) Math.max(1, left))
                .sessionTimeoutMs((int) Math.max(2_000, left))
                .retryPolicy(new RetryOneTime(50));
        if (uri.hasCredentials()) {
            builder.authorization("digest", uri.digest());
        }
        try (CuratorFramework root = builder.build()) {
            root.start();
            if (left <= 0 || !root.blockUntilConnected((int) left, TimeUnit.MILLISECONDS)) {
                throw new LockUnavailableException(String.format("ZooKeeper %s: the chroot '%s' does not exist, and "
                        + "no connection to make it came in time", uri.hosts(), chroot));
            }
            root.create().creatingParentsIfNeeded().forPath(chroot);
        } catch (KeeperException.NodeExistsException madeMeanwhile) {
            // another client made it first
        } catch (InterruptedException | LockUnavailableException e) {
            throw e;
        } catch (Exception e) {
            throw new LockUnavailableException(String.format("ZooKeeper %s: the chroot '%s' does not exist, and "
                    + "making it failed (%s): create it with an account that may, or leave it out of the URI",
                    uri.hosts(), chroot, e.getMessage()), e);
        }
    }
}
