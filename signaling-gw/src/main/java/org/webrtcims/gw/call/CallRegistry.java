package org.webrtcims.gw.call;

import org.springframework.stereotype.Component;

import java.util.*;
import java.util.concurrent.ConcurrentHashMap;

/** Live calls by Call-ID, plus a bounded history of ended ones so their reports can still be read. */
@Component
public class CallRegistry {
    private static final int HISTORY = 500;

    private final Map<String, Call> calls = new ConcurrentHashMap<>();
    private final Deque<String> ended = new ArrayDeque<>();

    void add(Call call) { calls.put(call.id, call); }

    public Optional<Call> find(String callId) { return callId == null ? Optional.empty() : Optional.ofNullable(calls.get(callId)); }

    List<Call> ofSession(String token) {
        return calls.values().stream().filter(c -> c.owner.equals(token)).toList();
    }

    /** Keeps the call readable but counts it toward the history bound. */
    synchronized void retire(Call call) {
        ended.addLast(call.id);
        while (ended.size() > HISTORY) calls.remove(ended.removeFirst());
    }

    /** The calls not ended yet. */
    List<Call> live() { return calls.values().stream().filter(c -> !c.ended()).toList(); }

    public long liveCount() { return calls.values().stream().filter(c -> !c.ended()).count(); }
}
