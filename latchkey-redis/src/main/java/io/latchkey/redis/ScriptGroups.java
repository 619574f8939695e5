package io.latchkey.redis;

import io.latchkey.redis.LockScripts.Script;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Groups the lock's and the semaphore's acquires and releases of one client that are ready at the same time into
 * one script call ("group commit"): the server pays one command, one script start and one reply for all of them.
 *
 * <p>When no call of this client's group is in flight, a call goes out at once and alone, as the very script it is
 * ({@link LockScripts#ACQUIRE}, {@link LockScripts#RELEASE}, {@link SemaphoreScripts#ACQUIRE},
 * {@link SemaphoreScripts#ADD}); so a client with one busy thread never waits for a group. While one is in flight,
 * the calls that come are queued, and when its answer arrives (or fails) everything queued goes out at once: alone
 * if it is one call, else as one {@link #GROUP} script of up to {@value #MAX_MEMBERS} members. Nothing waits for a
 * group to fill; a call waits at most for the answer of the call in flight before it, which is bounded by the
 * operation timeout (so in the worst case, a server that stops answering, a member learns its fate after up to
 * twice the operation timeout). On a Redis Cluster nothing is grouped: every call goes alone to its slot's node.
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
     * ARGV per member: script name, key count, argument count, its arguments; KEYS: every member's keys in order.
     * Returns one entry per member: its script's answer, or the text of the error it raised.
     */
    static final Script GROUP = new Script("group", LockScripts.TAKES + "grouped = true; "
            + LockScripts.ACQUIRE.function + LockScripts.RELEASE.function + SemaphoreScripts.ACQUIRE.function
            + SemaphoreScripts.ADD.function
            + "local run = {acquire = acquire, release = release, semaphoreAcquire = semaphoreAcquire, "
            + "semaphoreAdd = semaphoreAdd}; "
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
    private final boolean enabled;
    private final Queue<Member> queue = new ConcurrentLinkedQueue<>();
    /** Whether a call of this group is in flight: the calls that come meanwhile wait in {@link #queue}. */
    private final AtomicBoolean inFlight = new AtomicBoolean();

    private record Member(Script script, String[] keys, String[] args, CompletableFuture<Long> answer) {
    }

    /**
     * @param enabled whether to group; when not, every call goes out alone at once
     */
    ScriptGroups(ScriptExecutor executor, boolean enabled) {
        this.executor = executor;
        this.enabled = enabled;
    }

    /** Runs {@code script} (one of {@link #GROUP}'s members), alone or in a group; its integer answer. */
    CompletableFuture<Long> run(Script script, String[] keys, String... args) {
        if (!enabled) {
            return executor.run(script, ScriptOutputType.INTEGER, keys, args);
        }
        Member member = new Member(script, keys, args, new CompletableFuture<>());
        queue.add(member);
        if (inFlight.compareAndSet(false, true)) {
            send();
        }
        return member.answer;
    }

    /** Sends what is queued (this thread holds {@link #inFlight}); called again by the answer. */
    private void send() {
        Member first = queue.poll();
        if (first == null) {
            inFlight.set(false);
            // a call queued between the poll and the reset found the flag still set: send it
            if (!queue.isEmpty() && inFlight.compareAndSet(false, true)) {
                send();
            }
            return;
        }
        Member next = queue.poll();
        if (next == null) {
            executor.<Long>run(first.script, ScriptOutputType.INTEGER, first.keys, first.args).whenComplete((r, e) -> {
                try {
                    send();
                } finally {
                    complete(first, r, e);
                }
            });
            return;
        }
        List<Member> members = new ArrayList<>();
        members.add(first);
        for (Member m = next; m != null; m = members.size() < MAX_MEMBERS ? queue.poll() : null) {
            members.add(m);
        }
        List<String> keys = new ArrayList<>();
        List<String> args = new ArrayList<>();
        for (Member m : members) {
            keys.addAll(List.of(m.keys));
            args.add(m.script.name);
            args.add(Integer.toString(m.keys.length));
            args.add(Integer.toString(m.args.length));
            args.addAll(List.of(m.args));
        }
        executor.<List<Object>>run(GROUP, ScriptOutputType.MULTI, keys.toArray(String[]::new),
                args.toArray(String[]::new)).whenComplete((reply, e) -> {
                    try {
                        send();
                    } finally {
                        for (int i = 0; i < members.size(); i++) {
                            Object r = e != null || reply == null || i >= reply.size() ? null : reply.get(i);
                            complete(members.get(i), r instanceof Long ? (Long) r : null, e != null ? e
                                    : r instanceof Long ? null : executor.errors().map(
                                            new RedisCommandExecutionException(String.valueOf(r)),
                                            members.get(i).script.name));
                        }
                    }
                });
    }

    private static void complete(Member member, Long answer, Throwable error) {
        if (error != null) {
            member.answer.completeExceptionally(error);
        } else {
            member.answer.complete(answer);
        }
    }
}
