package io.latchkey.redis;

import io.latchkey.redis.LockScripts.Script;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Groups the lock's and the semaphores' acquires and releases of one client that are ready at the same time into
 * one script call ("group commit"): the server pays one command, one script start and one reply for all of them.
 *
 * <p>Up to {@value #IN_FLIGHT} calls of a client are in flight at once. A call that finds a place free goes out at once
 * and alone, as the very script it is ({@link LockScripts#ACQUIRE}, {@link LockScripts#RELEASE},
 * {@link SemaphoreScripts#ACQUIRE}, {@link SemaphoreScripts#ADD}, {@link PermitSemaphoreScripts#ACQUIRE},
 * {@link PermitSemaphoreScripts#RELEASE}); so a client with few busy threads never waits for a group. While every
 * place is taken, the calls that come are queued, and when an answer arrives (or fails) everything queued goes out at
 * once in that place: alone if it is one call, else as one {@link #GROUP} script of up to {@value #MAX_MEMBERS}
 * members. Nothing waits for a group to fill; a call waits at most for the answer of a call in flight before it, which
 * is bounded by the operation timeout (so in the worst case, a server that stops answering, a member learns its fate
 * after up to twice the operation timeout). The calls in flight share one connection, so the server runs them in the
 * order they were sent. On a Redis Cluster, where a script's keys share one hash slot, each slot has its own queue and
 * places: calls of different slots never wait.
 *
 * <p>Each member runs exactly the Lua logic of its own script (the script's body is a Lua function of both), in order,
 * each in a {@code pcall}: a member whose logic fails (a key of the wrong type) fails alone with the server's error,
 * and the members after it still run. The members share one read of the server's clock and of the namespace's token
 * key, which the group writes once at its end ({@link FencingTokens#NEXT}): a group of lock acquires costs the server
 * three commands per member (is it free, the hold, its expiry) and three for the whole group. Each member's answer
 * completes its own future. When the group's answer is lost (the operation timeout, a broken connection, a server error
 * for the whole script), every member fails with that error, exactly as it would have alone: the engine then takes each
 * one's no-answer path (an acquire's hold is cleaned up by its attempt id, a semaphore take is given back by its take
 * id, a release is reported as not answered). A server that lost its script cache answers NOSCRIPT and gets the group
 * script's source once ({@link ScriptExecutor#run}).
 */
final class ScriptGroups {

    /** The most members of one group script: bounds the time the script blocks the server. */
    static final int MAX_MEMBERS = 64;

    /**
     * The most calls of one lane in flight at once. One would make every call that comes while a call is in flight
     * wait for that call's round trip before its own: on a network (or a virtual machine) where the round trip, not the
     * server's CPU, is the cost, 16 busy threads then reached about half of what the same calls make unpipelined.
     * Four places keep the groups (0.65 script calls per lock cycle at 16 threads, against 0.25) and pay no such wait.
     */
    static final int IN_FLIGHT = 4;

    /**
     * ARGV per member: script name, key count, argument count, its arguments; KEYS: every member's keys in order.
     * Returns one entry per member: its script's answer, or the text of the error it raised.
     */
    static final Script GROUP = new Script("group", LockScripts.TAKES + "grouped = true; "
            + LockScripts.ACQUIRE.function + LockScripts.RELEASE.function + SemaphoreScripts.ACQUIRE.function
            + SemaphoreScripts.ADD.function + ReadWriteLockScripts.KEEP + PermitSemaphoreScripts.ACQUIRE.function
            + PermitSemaphoreScripts.RELEASE.function
            + "local run = {acquire = acquire, release = release, semaphoreAcquire = semaphoreAcquire, "
            + "semaphoreAdd = semaphoreAdd, permitAcquire = permitAcquire, permitRelease = permitRelease}; "
            + "local result, k, i = {}, 0, 1; "
            + "while i <= #ARGV do "
            + "local nk, na = tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]); "
            + "local ok, r = pcall(run[ARGV[i]], {unpack(KEYS, k + 1, k + nk)}, {unpack(ARGV, i + 3, i + 2 + na)}); "
            + "if not ok then r = type(r) == 'table' and r.err or tostring(r); end; "
            + "result[#result + 1] = r; "
            + "k = k + nk; i = i + 3 + na; "
            + "end; "
            + "store_tokens(); "
            + "return result;");

    private final ScriptExecutor executor;
    private final boolean cluster;
    /** The lanes: one (at 0) for a standalone server or Sentinel; on a cluster one per hash slot, made on first use. */
    private final Map<Integer, Lane> lanes = new ConcurrentHashMap<>();

    private record Member(Script script, String[] keys, String[] args, CompletableFuture<Long> answer) {
    }

    /** @param cluster whether the calls go to a Redis Cluster: then they are grouped per hash slot */
    ScriptGroups(ScriptExecutor executor, boolean cluster) {
        this.executor = executor;
        this.cluster = cluster;
    }

    /** Runs {@code script} (one of {@link #GROUP}'s members), alone or in a group; its integer answer. */
    CompletableFuture<Long> run(Script script, String[] keys, String... args) {
        Member member = new Member(script, keys, args, new CompletableFuture<>());
        lanes.computeIfAbsent(cluster ? LockKeys.slot(keys[0]) : 0, slot -> new Lane()).add(member);
        return member.answer;
    }

    /** The calls that may share one script call: every call, or on a cluster those of one hash slot. */
    private final class Lane {
        private final Queue<Member> queue = new ConcurrentLinkedQueue<>();
        /** The calls of this lane in flight, at most {@link #IN_FLIGHT}; while all places are taken, calls queue. */
        private final AtomicInteger inFlight = new AtomicInteger();

        void add(Member member) {
            queue.add(member);
            sendIfFree();
        }

        /** Takes a free place in flight, if there is one, and sends what is queued with it. */
        private void sendIfFree() {
            for (int n = inFlight.get(); n < IN_FLIGHT; n = inFlight.get()) {
                if (inFlight.compareAndSet(n, n + 1)) {
                    send();
                    return;
                }
            }
        }

        /** Sends what is queued (this thread holds a place in flight); called again by the answer. */
        private void send() {
            List<Member> members = new ArrayList<>();
            for (Member m = queue.poll(); m != null; m = members.size() < MAX_MEMBERS ? queue.poll() : null) {
                members.add(m);
            }
            if (members.isEmpty()) {
                inFlight.decrementAndGet();
                // a call queued between the poll and the decrement found no place free: send it
                if (!queue.isEmpty()) {
                    sendIfFree();
                }
                return;
            }
            call(members).whenComplete((reply, e) -> {
                try {
                    send();
                } finally {
                    for (int i = 0; i < members.size(); i++) {
                        answer(members.get(i), reply instanceof List<?> list
                                ? (i < list.size() ? list.get(i) : null) : reply, e);
                    }
                }
            });
        }
    }

    /** One call alone as its own script (an integer answer), several as one group (a list of answers). */
    private CompletableFuture<?> call(List<Member> members) {
        Member first = members.get(0);
        if (members.size() == 1) {
            return executor.run(first.script, ScriptOutputType.INTEGER, first.keys, first.args);
        }
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (Member m : members) {
            keys.addAll(List.of(m.keys));
            args.addAll(List.of(m.script.name, Integer.toString(m.keys.length), Integer.toString(m.args.length)));
            args.addAll(List.of(m.args));
        }
        return executor.run(GROUP, ScriptOutputType.MULTI, keys.toArray(String[]::new), args.toArray(String[]::new));
    }

    /** Completes a member with its answer: an integer, or else the error the whole call or its own logic raised. */
    private void answer(Member member, Object answer, Throwable error) {
        if (answer instanceof Long n && error == null) {
            member.answer.complete(n);
        } else {
            member.answer.completeExceptionally(error != null ? error : executor.errors().map(
                    new RedisCommandExecutionException(String.valueOf(answer)), member.script.name));
        }
    }
}
