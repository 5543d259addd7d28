package org.webrtcims.gw.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Where a call's set-up time goes, from the gateway's own clock (issue #26, docs/benchmarks.md "Set-up timeline"):
 * the api, SIP and media layers mark each point a call passes ({@link Mark}, System.nanoTime()) under its SIP
 * Call-ID, the first time only (a re-offer later in the call marks nothing). Once a call's set-up is done (MO: the
 * SDP answer went to the browser; MT: the 200 went to IMS) its {@link Step}s — the time between two marks — are
 * recorded in `gw_setup_step_seconds{direction,step,owner}`, and the last {@value #KEPT} timelines stay readable
 * ({@link #recent}) for the bench and the demo report. `owner` says who spent the step: `gateway` (what issue #26
 * wants under a millisecond), `rtpengine` (an ng round trip as the gateway sees it), `ims` or `browser`.
 * Each mark also notes the CPU time its thread had spent (ThreadMXBean): a step whose two marks were taken on one
 * thread has its CPU time beside its wall time, so a step that computes is told from one that waits (a lock, the
 * scheduler on a loaded host, another thread).
 */
@Component
public class SetupTimeline {
    /** Timelines kept after (or without) completion; older ones are dropped first. */
    static final int KEPT = 2048;

    /** A point of a call's set-up, in the order an MO (browser offer) or MT (IMS offer) call passes them. */
    public enum Mark {
        /** MO: the browser's `call` message was taken off the WebSocket. */
        WS_CALL_RECEIVED,
        /** MT: the INVITE reached the gateway's SIP listener. */
        INVITE_RECEIVED,
        /** The call's first ng `offer` leaves / its reply is back. */
        NG_OFFER_SENT, NG_OFFER_REPLY,
        /** MO: the INVITE went to the P-CSCF. */
        INVITE_SENT,
        /** MT: `incoming` (with the offer) went to the browser. */
        INCOMING_SENT,
        /** MO: the first response to the INVITE carrying the SDP answer (18x or 2xx) reached the SIP listener. */
        IMS_ANSWER_RECEIVED,
        /** MT: the browser's `answer` message was taken off the WebSocket. */
        WS_ANSWER_RECEIVED,
        /** The call's first ng `answer` leaves / its reply is back. */
        NG_ANSWER_SENT, NG_ANSWER_REPLY,
        /** MO: the SDP answer went to the browser (`progress` with SDP or `answered`). */
        ANSWER_SENT,
        /** MT: the 200 OK went to IMS. */
        OK_SENT
    }

    /** Two marks, who spends the time between them, and the directions it belongs to. */
    public enum Step {
        BROWSER_TO_NG_OFFER("mo", "gateway", Mark.WS_CALL_RECEIVED, Mark.NG_OFFER_SENT),
        MO_NG_OFFER("mo", "rtpengine", Mark.NG_OFFER_SENT, Mark.NG_OFFER_REPLY),
        NG_OFFER_TO_INVITE("mo", "gateway", Mark.NG_OFFER_REPLY, Mark.INVITE_SENT),
        INVITE_TO_ANSWER("mo", "ims", Mark.INVITE_SENT, Mark.IMS_ANSWER_RECEIVED),
        IMS_ANSWER_TO_NG_ANSWER("mo", "gateway", Mark.IMS_ANSWER_RECEIVED, Mark.NG_ANSWER_SENT),
        MO_NG_ANSWER("mo", "rtpengine", Mark.NG_ANSWER_SENT, Mark.NG_ANSWER_REPLY),
        NG_ANSWER_TO_BROWSER("mo", "gateway", Mark.NG_ANSWER_REPLY, Mark.ANSWER_SENT),
        INVITE_TO_NG_OFFER("mt", "gateway", Mark.INVITE_RECEIVED, Mark.NG_OFFER_SENT),
        MT_NG_OFFER("mt", "rtpengine", Mark.NG_OFFER_SENT, Mark.NG_OFFER_REPLY),
        NG_OFFER_TO_INCOMING("mt", "gateway", Mark.NG_OFFER_REPLY, Mark.INCOMING_SENT),
        INCOMING_TO_ANSWER("mt", "browser", Mark.INCOMING_SENT, Mark.WS_ANSWER_RECEIVED),
        BROWSER_ANSWER_TO_NG_ANSWER("mt", "gateway", Mark.WS_ANSWER_RECEIVED, Mark.NG_ANSWER_SENT),
        MT_NG_ANSWER("mt", "rtpengine", Mark.NG_ANSWER_SENT, Mark.NG_ANSWER_REPLY),
        NG_ANSWER_TO_OK("mt", "gateway", Mark.NG_ANSWER_REPLY, Mark.OK_SENT);

        public final String direction;
        public final String owner;
        public final Mark from;
        public final Mark to;

        Step(String direction, String owner, Mark from, Mark to) {
            this.direction = direction;
            this.owner = owner;
            this.from = from;
            this.to = to;
        }

        /** The name in reports and metrics: lower case with dashes (`browser-to-ng-offer`). */
        public String wire() { return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-'); }
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();
    private static final boolean CPU = THREADS.isCurrentThreadCpuTimeSupported() && THREADS.isThreadCpuTimeEnabled();

    /** The CPU time the calling thread has spent so far (ns), or -1 when the JVM cannot tell: for {@link #mark(String, Mark, long, long)}. */
    public static long cpuNow() { return CPU ? THREADS.getCurrentThreadCpuTime() : -1; }

    /** One call's marks (nanoTime) and when its first mark was taken (wall clock, for `since` filters). */
    private static final class Entry {
        final EnumMap<Mark, Long> marks = new EnumMap<>(Mark.class);
        /** Per mark: {thread id, that thread's CPU time (ns)}; the CPU time is -1 when unknown. */
        final EnumMap<Mark, long[]> cpu = new EnumMap<>(Mark.class);
        long firstWallMillis;
        String direction;
    }

    private final MeterRegistry registry;
    private final WarmupCalls warmups;
    private final boolean enabled;
    private final Map<String, Entry> calls = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Entry> eldest) { return size() > KEPT; }
    };

    /** A timeline with no warm-up calls to leave out (unit tests). */
    public SetupTimeline(MeterRegistry registry) { this(registry, new WarmupCalls()); }

    /** {@code warmups}: the start-up warm-up's calls, which it does not record. */
    @Autowired
    public SetupTimeline(MeterRegistry registry, WarmupCalls warmups) { this(registry, warmups, true); }

    private SetupTimeline(MeterRegistry registry, WarmupCalls warmups, boolean enabled) {
        this.registry = registry;
        this.warmups = warmups;
        this.enabled = enabled;
    }

    /** A timeline that records nothing: for objects built without Spring (unit tests). */
    public static SetupTimeline off() { return new SetupTimeline(new SimpleMeterRegistry(), new WarmupCalls(), false); }

    /** Marks {@code mark} now for the call, unless it was marked before. */
    public void mark(String callId, Mark mark) { mark(callId, mark, System.nanoTime(), cpuNow()); }

    /**
     * As {@link #mark(String, Mark, long)}, but only for a call that has a timeline already: for call-ids a browser
     * names (its `answer`), which must not start timelines of calls that do not exist.
     */
    public void markKnown(String callId, Mark mark, long nanos) { markKnown(callId, mark, nanos, -1); }

    /** As {@link #markKnown(String, Mark, long)}, with the thread's CPU time ({@link #cpuNow}) taken with {@code nanos}. */
    public void markKnown(String callId, Mark mark, long nanos, long cpuNanos) {
        if (!enabled || callId == null) return;
        synchronized (calls) {
            if (!calls.containsKey(callId)) return;
        }
        mark(callId, mark, nanos, cpuNanos);
    }

    /** Marks {@code mark} at {@code nanos} (System.nanoTime()) for the call, unless it was marked before. */
    public void mark(String callId, Mark mark, long nanos) { mark(callId, mark, nanos, -1); }

    /**
     * As {@link #mark(String, Mark, long)}, with the CPU time the calling thread had spent at {@code nanos}
     * ({@link #cpuNow}, taken on this thread; -1: unknown).
     */
    public void mark(String callId, Mark mark, long nanos, long cpuNanos) {
        if (!enabled || callId == null || warmups.is(callId)) return; // the start-up warm-up's calls are no calls
        long thread = Thread.currentThread().getId();
        long[] done = null;
        String direction;
        synchronized (calls) {
            Entry e = calls.get(callId);
            if (e == null) {
                e = new Entry();
                e.firstWallMillis = Long.MAX_VALUE;
                calls.put(callId, e);
            }
            if (e.direction != null || e.marks.putIfAbsent(mark, nanos) != null) return; // complete, or marked before
            e.cpu.put(mark, new long[] {thread, cpuNanos});
            // a mark may be taken after a later one (MO: the `call` message's, once the call has its id)
            e.firstWallMillis = Math.min(e.firstWallMillis,
                    System.currentTimeMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos));
            if (mark != Mark.ANSWER_SENT && mark != Mark.OK_SENT) return;
            e.direction = mark == Mark.ANSWER_SENT && !e.marks.containsKey(Mark.INVITE_RECEIVED) ? "mo" : "mt";
            direction = e.direction;
            done = new long[Step.values().length];
            for (Step s : Step.values()) done[s.ordinal()] = s.direction.equals(direction) ? between(e, s) : -1;
        }
        for (Step s : Step.values()) {
            if (done[s.ordinal()] < 0) continue;
            Timer.builder("gw.setup.step").tag("direction", direction).tag("step", s.wire()).tag("owner", s.owner)
                    .description("call set-up, one step of the gateway's timeline (issue #26)")
                    .publishPercentiles(0.5, 0.95).register(registry).record(done[s.ordinal()], TimeUnit.NANOSECONDS);
        }
    }

    /** Nanoseconds from the step's first mark to its second; -1 when either is missing or they are out of order. */
    private static long between(Entry e, Step s) {
        Long a = e.marks.get(s.from);
        Long b = e.marks.get(s.to);
        return a == null || b == null || b < a ? -1 : b - a;
    }

    /** The CPU time the step's thread spent between its two marks (ns); -1 unless both were taken on one thread with it known. */
    private static long cpuBetween(Entry e, Step s) {
        long[] a = e.cpu.get(s.from);
        long[] b = e.cpu.get(s.to);
        return a == null || b == null || a[0] != b[0] || a[1] < 0 || b[1] < a[1] ? -1 : b[1] - a[1];
    }

    /**
     * The timelines whose first mark is at or after {@code sinceMillis} (wall clock), oldest first: per call its
     * `callId`, `direction` (null while set-up is not done), `complete`, each mark in ms after the call's first
     * mark, and each step of its direction in ms (`null` when a mark is missing); `stepsCpuMs`, the CPU time the
     * step's thread spent in it, for the steps whose two marks were taken on one thread (others left out).
     */
    public List<Map<String, Object>> recent(long sinceMillis) {
        List<Map<String, Object>> out = new ArrayList<>();
        synchronized (calls) {
            calls.forEach((id, e) -> {
                if (e.firstWallMillis >= sinceMillis) out.add(view(id, e));
            });
        }
        return out;
    }

    /** The timeline of one call (as in {@link #recent}), or null when none is kept. */
    public Map<String, Object> of(String callId) {
        synchronized (calls) {
            Entry e = calls.get(callId);
            return e == null ? null : view(callId, e);
        }
    }

    private static Map<String, Object> view(String id, Entry e) {
        long first = e.marks.values().stream().mapToLong(Long::longValue).min().orElse(0);
        Map<String, Object> marks = new LinkedHashMap<>();
        e.marks.forEach((m, t) -> marks.put(m.name().toLowerCase(java.util.Locale.ROOT), ms(t - first)));
        String direction = e.direction != null ? e.direction
                : e.marks.containsKey(Mark.INVITE_RECEIVED) ? "mt" : "mo";
        Map<String, Object> steps = new LinkedHashMap<>();
        Map<String, Object> cpu = new LinkedHashMap<>();
        for (Step s : Step.values()) {
            if (!s.direction.equals(direction)) continue;
            long d = between(e, s);
            steps.put(s.wire(), d < 0 ? null : ms(d));
            long c = cpuBetween(e, s);
            if (c >= 0) cpu.put(s.wire(), ms(c));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("callId", id);
        out.put("direction", direction);
        out.put("complete", e.direction != null);
        out.put("startedAtMillis", e.firstWallMillis);
        out.put("marksMs", marks);
        out.put("stepsMs", steps);
        out.put("stepsCpuMs", cpu);
        return out;
    }

    /** Milliseconds with microsecond resolution. */
    private static double ms(long nanos) { return Math.round(nanos / 1000.0) / 1000.0; }

    /** The owner of each step (`gateway`, `rtpengine`, `ims`, `browser`), by its wire name: for reports. */
    public static Map<String, String> owners() {
        Map<String, String> out = new LinkedHashMap<>();
        for (Step s : Step.values()) out.put(s.wire(), s.owner);
        return out;
    }
}
