package org.webrtcims.gw.call;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.metrics.GatewayMetrics;

import java.util.*;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Live calls by Call-ID, plus a bounded history of ended ones so their reports can still be read. A call's start,
 * answer, transitions and end pass through here, which keeps the call meters (GatewayMetrics) in one place of the call layer.
 * The registry also holds the call quotas (`lab.limits.*`), checked before rtpengine is asked for anything: live calls
 * per browser session and in total (rtpengine's port range is finite; {@link #admit}, on its own live counts), m-lines
 * and ICE candidates per SDP ({@link #admitSdp}). Each refusal is a {@link CallFailure} with its own code:
 * `too-many-calls`, `gateway-busy`, `too-many-mlines`, `too-many-candidates`.
 */
@Component
public class CallRegistry {
    private static final int HISTORY = 500;
    /** A line break of an SDP, compiled once: String.split compiles its regex on every call (issue #26). */

    private final Map<String, Call> calls = new ConcurrentHashMap<>();
    private final Deque<String> ended = new ArrayDeque<>();
    private final GatewayMetrics metrics;
    private final GatewayProperties.Limits limits;
    /*
     * Live counts, kept as calls are added and retired (each call is retired once, by CallTeardown.finish):
     * the quota check runs on every new call and must not scan the registry or take each call's lock (the
     * setup-rate bench's JFR at 100 calls/s had 28 % of the gateway's samples in that scan).
     */
    private final AtomicInteger live = new AtomicInteger();
    private final Map<String, AtomicInteger> liveBySession = new ConcurrentHashMap<>();
    private final Map<Direction, AtomicInteger> liveByDirection = new EnumMap<>(Direction.class);
    /** A session's first live count; and each call's transitions to the meters: made once (docs/architecture.md "Starting the gateway"). */
    private static final java.util.function.Function<String, AtomicInteger> NEW_COUNT = k -> new AtomicInteger();
    private final Call.TransitionListener transitionMeter;

    /** With meters of its own and the default limits (unit tests). */
    public CallRegistry() {
        this(GatewayMetrics.none());
    }

    /** With the default limits (unit tests). */
    public CallRegistry(GatewayMetrics metrics) {
        this(metrics, new GatewayProperties());
    }

    /** With meters of its own (unit tests); the limits are read from {@code props} at each check. */
    public CallRegistry(GatewayProperties props) {
        this(GatewayMetrics.none(), props);
    }

    @Autowired
    public CallRegistry(GatewayMetrics metrics, GatewayProperties props) {
        this.metrics = metrics;
        this.limits = props.getLimits();
        this.transitionMeter = (from, to) -> metrics.callTransition(from.wire(), to.wire());
        for (Direction d : Direction.values()) liveByDirection.put(d, new AtomicInteger());
        for (Direction d : Direction.values()) metrics.activeCalls(d.wire(), () -> liveCount(d));
        for (CallState from : CallState.values()) for (CallState to : from.next()) metrics.callTransitionKnown(from.wire(), to.wire());
    }

    /** A new call of browser session `token` (MO or MT) may start: refused over the session's or the gateway's quota. */
    void admit(String token) {
        long mine = liveCountOfSession(token);
        if (mine >= limits.getCallsPerUser()) {
            throw new CallFailure("too-many-calls", "this session already has " + mine + " calls (lab.limits.calls-per-user="
                    + limits.getCallsPerUser() + ")");
        }
        long all = liveCount();
        if (all >= limits.getCallsTotal()) {
            throw new CallFailure("gateway-busy", "the gateway carries its maximum of " + limits.getCallsTotal() + " calls");
        }
    }

    /** Any SDP the gateway is about to hand to rtpengine, from the browser or from IMS: refused over the m-line or candidate quota. */
    void admitSdp(String sdp) {
        if (sdp == null) return;
        // counted in place, without cutting the SDP into lines (the regex split was ~0.15 ms of every MO set-up's CPU:
        // the set-up-rate bench's JFR, issue #26)
        int mlines = 0;
        int candidates = 0;
        for (int at = 0; at < sdp.length(); ) {
            if (sdp.startsWith("m=", at)) mlines++;
            else if (sdp.startsWith("a=candidate:", at)) candidates++;
            int eol = sdp.indexOf('\n', at);
            if (eol < 0) break;
            at = eol + 1;
        }
        if (mlines > limits.getMlinesPerSdp()) {
            throw new CallFailure("too-many-mlines", "the SDP has " + mlines + " m-lines (lab.limits.mlines-per-sdp="
                    + limits.getMlinesPerSdp() + ")");
        }
        if (candidates > limits.getCandidatesPerSdp()) {
            throw new CallFailure("too-many-candidates", "the SDP has " + candidates + " candidates (lab.limits.candidates-per-sdp="
                    + limits.getCandidatesPerSdp() + ")");
        }
    }

    void add(Call call) {
        calls.put(call.id, call);
        live.incrementAndGet();
        liveBySession.computeIfAbsent(call.owner, NEW_COUNT).incrementAndGet();
        liveByDirection.get(call.direction).incrementAndGet();
        metrics.callAttempt(call.direction.wire());
        call.reportTransitionsTo(transitionMeter);
    }

    /** The call was answered (MO: the 200 from IMS, MT: the gateway's 200): counts it and its setup time. */
    void answered(Call call) {
        metrics.callAnswered(call.direction.wire(), System.nanoTime() - call.startedNanos);
    }

    public Optional<Call> find(String callId) { return callId == null ? Optional.empty() : Optional.ofNullable(calls.get(callId)); }

    List<Call> ofSession(String token) {
        return calls.values().stream().filter(c -> c.owner.equals(token)).toList();
    }

    /** Live calls of a session (not ended yet), without a scan (the quota runs on every new call). */
    long liveCountOfSession(String token) {
        AtomicInteger n = liveBySession.get(token);
        return n == null ? 0 : n.get();
    }

    /** Keeps the call readable but counts it toward the history bound. */
    synchronized void retire(Call call) {
        live.decrementAndGet();
        liveByDirection.get(call.direction).decrementAndGet();
        liveBySession.computeIfPresent(call.owner, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
        Integer sipFinal = call.sipFinal();
        metrics.callEnded(call.direction.wire(), call.endReason(), sipFinal, sipFinal != null && sipFinal >= 200 && sipFinal < 300);
        ended.addLast(call.id);
        while (ended.size() > HISTORY) calls.remove(ended.removeFirst());
    }

    /** The calls not ended yet. */
    List<Call> live() { return calls.values().stream().filter(c -> !c.ended()).toList(); }

    public long liveCount() { return live.get(); }

    long liveCount(Direction direction) { return liveByDirection.get(direction).get(); }
}
