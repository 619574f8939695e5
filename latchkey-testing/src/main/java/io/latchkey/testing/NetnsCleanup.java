package io.latchkey.testing;

/**
 * The deletion of what {@link NetworkNamespace} or {@link NetworkSegment} set up (links, route, namespaces): run once,
 * by {@code close()} or, if the JVM exits first, by a shutdown hook (thread {@code latchkey-netns-cleanup-NAME}).
 */
final class NetnsCleanup {

    private final Runnable delete;
    private final Thread hook;
    private boolean done;

    NetnsCleanup(String name, Runnable delete) {
        this.delete = delete;
        this.hook = new Thread(delete, "latchkey-netns-cleanup-" + name);
    }

    /** Runs the deletion at the JVM's exit unless {@link #run()} ran first. */
    void addShutdownHook() {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** Runs the deletion and removes the shutdown hook; safe to call twice. */
    synchronized void run() {
        if (done) {
            return;
        }
        done = true;
        delete.run();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException | IllegalArgumentException e) {
            // the JVM is shutting down (the hook runs or ran), or it was never added
        }
    }
}
