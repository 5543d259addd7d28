package org.webrtcims.gw.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The gateway's own meters, in one place (docs/architecture.md "Metrics"): the call, SIP, media and api layers
 * call one method per event; this class names the meters and their tags. Scraped as Prometheus text at
 * `/actuator/prometheus` (loopback clients only, docs/security.md). The bottom of the package order: it uses no
 * gateway package. Each meter is looked up in the registry once and kept here: a registry lookup builds, sorts and
 * hashes the meter's id on every call (issue #26: several of them per call set-up, on the set-up's threads).
 */
@Component
public class GatewayMetrics {
    /** `ended.reason` values a call can end with besides a SIP failure's phrase (docs/architecture.md). */
    static final Set<String> REASONS = Set.of("local-hangup", "remote-hangup", "remote-cancel", "websocket-closed",
            "logout", "replaced", "expired", "timeout", "media-failed", "preconditions-failed", "media-timeout",
            "sip-failed", "bad-sdp", "no-usable-address", "rejected", "pcscf-unreachable");

    private final MeterRegistry registry;
    /** The start-up warm-up's ng round trips (call/SetupWarmup): the same meter code runs, no published figure moves. */
    private final MeterRegistry warmupRegistry = new SimpleMeterRegistry();
    private final AtomicInteger webSockets = new AtomicInteger();
    /** The counters and timers used so far, by name and tags (name, key, value, key, value ...). */
    private final ConcurrentHashMap<List<String>, Counter> counters = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<List<String>, Timer> timers = new ConcurrentHashMap<>();
    private final Timer.Builder setup = Timer.builder("gw.call.setup")
            .description("call setup time: MO browser `call` to the 200 from IMS, MT INVITE to the gateway's 200")
            .serviceLevelObjectives(Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200),
                    Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
                    Duration.ofSeconds(10), Duration.ofSeconds(30))
            .minimumExpectedValue(Duration.ofMillis(1)).maximumExpectedValue(Duration.ofSeconds(60));

    @Autowired
    public GatewayMetrics(MeterRegistry registry) {
        this.registry = registry;
        Gauge.builder("gw.websocket.sessions", webSockets, AtomicInteger::get)
                .description("open browser WebSockets").register(registry);
        // the set-up histograms from the start (zero counts until a call): made at a call's first use, they cost the
        // first MO call 3.5 ms of its set-up (issue #26, docs/benchmarks.md)
        for (String direction : List.of("mo", "mt")) setupTimer(direction);
        // and the ng round trips of a call's set-up and end (a time-window percentile histogram each)
        for (String command : List.of("offer", "answer", "query", "delete")) ngTimer(command);
        // and a call's counters: registered on a call's set-up thread at its first use, each cost the first call
        // ~0.5-2 ms (issue #26); here they start at 0, as Prometheus has it for known label sets
        for (String direction : List.of("mo", "mt")) {
            counter("gw.call.attempts", "direction", direction);
            counter("gw.call.answers", "direction", direction);
        }
    }

    private Timer ngTimer(String command) {
        return timers.computeIfAbsent(key("gw.ng.latency", "command", command), k -> ngTimerOn(registry, command));
    }

    private static Timer ngTimerOn(MeterRegistry on, String command) {
        return Timer.builder("gw.ng.latency").tag("command", command)
                .description("rtpengine ng command round trip").publishPercentiles(0.5, 0.99).register(on);
    }

    private Timer setupTimer(String direction) {
        return timers.computeIfAbsent(key("gw.call.setup", "direction", direction), k -> setup.tag("direction", direction).register(registry));
    }

    /** Meters on a private registry: for unit tests and for objects built without Spring. */
    public static GatewayMetrics none() {
        return new GatewayMetrics(new SimpleMeterRegistry());
    }

    public MeterRegistry registry() { return registry; }

    /** Live calls of one direction (`mo`/`mt`), read at each scrape (held strongly: Micrometer holds a gauge's source weakly by default). */
    public void activeCalls(String direction, Supplier<Number> count) {
        Gauge.builder("gw.calls.active", count, c -> c.get().doubleValue()).tag("direction", direction)
                .description("live calls").strongReference(true).register(registry);
    }

    /** Registered browser users (bindings the gateway holds at the registrar), read at each scrape. */
    public void registrations(Supplier<Number> count) {
        Gauge.builder("gw.registrations", count, c -> c.get().doubleValue())
                .description("browser users registered with IMS").strongReference(true).register(registry);
    }

    /** SIP dialogs (early and confirmed) the SIP stack holds, read at each scrape: what `./lab soak` checks for leaks. */
    public void sipDialogs(Supplier<Number> count) {
        Gauge.builder("gw.sip.dialogs", count, c -> c.get().doubleValue())
                .description("SIP dialogs the stack holds").strongReference(true).register(registry);
    }

    /** The counter {@code name} with these tags (key, value, ...), registered on first use. */
    private Counter counter(String name, String... tags) {
        return counters.computeIfAbsent(key(name, tags), k -> registry.counter(name, tags));
    }

    private static List<String> key(String name, String... tags) {
        String[] k = new String[tags.length + 1];
        k[0] = name;
        System.arraycopy(tags, 0, k, 1, tags.length);
        return List.of(k);
    }

    public void callAttempt(String direction) {
        counter("gw.call.attempts", "direction", direction).increment();
    }

    /** The call was answered (MO: 200 received, MT: 200 sent), {@code setupNanos} after it started. */
    public void callAnswered(String direction, long setupNanos) {
        counter("gw.call.answers", "direction", direction).increment();
        setupTimer(direction).record(setupNanos, TimeUnit.NANOSECONDS);
    }

    /** A move a call may make (call/CallState): its counter starts at 0, before a call's set-up thread needs it. */
    public void callTransitionKnown(String from, String to) {
        counter("gw.call.transitions", "from", from, "to", to);
    }

    /** A call moved from state {@code from} to {@code to} (call/Call.transition; the states' wire names). */
    public void callTransition(String from, String to) {
        counter("gw.call.transitions", "from", from, "to", to).increment();
    }

    /**
     * The call ended with `ended.reason` {@code reason} (sipCode: the failure response, if any); not answered:
     * it also counts as a failure. A reason outside the fixed set (a SIP reason phrase) is tagged `sip-<code>`,
     * so the tag's values stay bounded whatever phrases IMS sends.
     */
    public void callEnded(String direction, String reason, Integer sipCode, boolean answered) {
        String tag = reasonTag(reason, sipCode);
        counter("gw.calls.ended", "direction", direction, "reason", tag).increment();
        if (!answered) counter("gw.call.failures", "direction", direction, "reason", tag).increment();
    }

    static String reasonTag(String reason, Integer sipCode) {
        if (reason != null && REASONS.contains(reason)) return reason;
        return sipCode != null ? "sip-" + sipCode : "other";
    }

    public void webSocketOpened() { webSockets.incrementAndGet(); }

    public void webSocketClosed() { webSockets.decrementAndGet(); }

    /** One REGISTER request sent (each digest/AKA answer is one more); kind: `initial`, `refresh`, `deregister`. */
    public void registerSent(String kind) {
        counter("gw.register.requests", "kind", kind).increment();
    }

    /** A registration (its REGISTERs until the final answer) ended; ok false: refused, timed out or not sent. */
    public void registerDone(String kind, boolean ok) {
        counter("gw.registrations.completed", "kind", kind, "result", ok ? "ok" : "failed").increment();
    }

    /**
     * One ng round trip of the start-up warm-up's calls: recorded on a private registry, so the percentile histogram's
     * code (its first records resize it) has run before a call's first ng command records on the published one.
     */
    public void ngWarmup(String command, long nanos) {
        ngTimerOn(warmupRegistry, command == null ? "unknown" : command).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** One ng command's round trip (retries included); error: its kind (`timeout`, `error-result`, `protocol`), else null. */
    public void ngCommand(String command, long nanos, String error) {
        String cmd = command == null ? "unknown" : command;
        ngTimer(cmd).record(nanos, TimeUnit.NANOSECONDS);
        if (error != null) counter("gw.ng.errors", "command", cmd, "kind", error).increment();
    }
}
