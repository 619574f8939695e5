package io.latchkey.cli;

/** Thread helpers of {@code latchkey verify}: named daemon threads, and waiting until a thread is parked in a wait. */
final class VerifyThreads {

    private VerifyThreads() {
    }

    static Thread start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    /**
     * Waits until {@code t} has been parked for a few consecutive polls, i.e. it is queued behind the holder rather
     * than still on its way to the server. Returns false if it never parked within {@code timeoutMillis}.
     */
    static boolean awaitParked(Thread t, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000;
        int parkedPolls = 0;
        while (System.nanoTime() < deadline && t.isAlive()) {
            Thread.State s = t.getState();
            parkedPolls = s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING ? parkedPolls + 1 : 0;
            if (parkedPolls >= 20) {
                return true;
            }
            Thread.sleep(1);
        }
        return false;
    }

    static String ms(long nanos) {
        return Durations.latency(nanos);
    }
}
