package org.webrtcims.gw.call;

import org.webrtcims.gw.metrics.WarmupCalls;

import jakarta.annotation.PreDestroy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.media.MediaStats;
import org.webrtcims.gw.media.NgException;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps rtpengine's sessions and the gateway's calls in step (issue #12), on its own thread every
 * `lab.rtpengine.reconcile-ms`: a session of this gateway (its call-id prefix) with no live call is deleted once
 * it was seen so in two rounds in a row (an MO call's offer reaches rtpengine just before the call is
 * registered); a live call rtpengine answered an offer for before the `list` went out, but which the list lacks
 * (rtpengine restarted), is ended with `media-lost` (BYE or CANCEL toward IMS). At start, every session with this
 * gateway's prefix is from an earlier run and is deleted; at shutdown every live call is ended (`shutdown`).
 * A confirmed call whose relay answered again after being down (restarted: rtpengine restores its calls from
 * Redis, docs/scale-out.md) is watched: if its media counters do not grow in both directions from one round to the
 * next, it is ended with `media-lost` too (a restored call whose media stays dead). rtpengine's counters only say
 * what it received, not whether the browser can decrypt what it sends (rtpengine 10.5 restores a call's outgoing
 * SRTP index as of its last Redis write, so a call whose RTP sequence wrapped since is sent with the wrong ROC and
 * every packet fails authentication in the browser), so the browser is asked too: `media-check` twice, a
 * `media-report {packetsReceived}` back each time; if that count does not grow, the call is ended `media-lost`.
 * A browser that does not answer is judged by rtpengine's counters alone. Once a call passes it is left alone.
 */
@Component
public class MediaReconciler {
    private static final Logger log = LoggerFactory.getLogger(MediaReconciler.class);

    private final WarmupCalls warmups;
    private final CallRegistry registry;
    private final CallMedia media;
    private final CallTeardown teardown;
    private final CallEventSink sink;
    /** Between the two `media-check`s of a watched call (half a round, at least 500 ms; 0 = at the next round). */
    private final long checkGapMs;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "media-reconciler");
        t.setDaemon(true);
        return t;
    });
    /** Orphans of the last round: deleted when still orphans in the next. */
    private Set<String> suspects = Set.of();
    /** Per call whose media flowed again after its relay came back: the relay's recoveries then (watched on a further rise). */
    private final java.util.Map<String, Long> recoveriesSeen = new java.util.HashMap<>();
    /** Calls on a relay that came back, being watched (the browser's reports arrive on WebSocket threads). */
    private final java.util.Map<String, Watch> watched = new java.util.concurrent.ConcurrentHashMap<>();

    /** A restored call under watch: rtpengine's counters when first seen, the browser's reports since. */
    private static final class Watch {
        final long toIms;
        final long toBrowser;
        private int rounds;
        private final List<Long> reports = new java.util.ArrayList<>();

        Watch(MediaStats s) {
            toIms = s.packetsToIms();
            toBrowser = s.packetsToBrowser();
        }

        synchronized void report(long packetsReceived) {
            reports.add(packetsReceived);
        }

        synchronized List<Long> reports() {
            return List.copyOf(reports);
        }

        /** One more round of the reconciler saw the call under watch: how many so far. */
        synchronized int nextRound() {
            return ++rounds;
        }
    }

    /** {@code warmups}: the start-up warm-up's calls, whose rtpengine sessions are its own (not orphans). */
    public MediaReconciler(CallRegistry registry, CallMedia media, CallTeardown teardown, CallEventSink sink,
                           GatewayProperties props, WarmupCalls warmups) {
        this.warmups = warmups;
        this.registry = registry;
        this.media = media;
        this.teardown = teardown;
        this.sink = sink;
        long every = props.getRtpengine().getReconcileMs();
        this.checkGapMs = every > 0 ? Math.max(500, every / 2) : 0;
        thread.execute(this::startupCleanup);
        if (every > 0) thread.scheduleWithFixedDelay(this::roundSafely, every, every, TimeUnit.MILLISECONDS);
    }

    /** Sessions of an earlier run of this gateway (same prefix), left when it stopped without cleaning up. */
    void startupCleanup() {
        try {
            List<String> left = media.sessions().stream().filter(id -> registry.find(id).isEmpty())
                    .filter(id -> !warmups.is(id)).toList(); // the start-up warm-up's may be under way
            if (!left.isEmpty()) log.info("deleting {} rtpengine session(s) left by an earlier run: {}", left.size(), left);
            deleteAll(left);
        } catch (NgException e) {
            log.warn("rtpengine sessions of an earlier run not checked: {}", e.getMessage());
        }
    }

    private void roundSafely() {
        try {
            round();
        } catch (RuntimeException e) {
            log.warn("reconciliation failed: {}", e.toString());
        }
    }

    /** One comparison of rtpengine's `list` with the live calls. */
    void round() {
        if (media.unavailable()) return; // the breaker's probe finds out when it is back
        media.noteRelayRestarts();
        long listedAt = System.nanoTime();
        List<String> listed;
        try {
            listed = media.sessions();
        } catch (NgException e) {
            log.debug("reconciliation skipped: {}", e.getMessage());
            return;
        }
        Set<String> inRtpengine = new HashSet<>(listed);
        Set<String> orphans = new HashSet<>();
        for (String id : listed) {
            if (warmups.is(id)) continue; // the start-up warm-up deletes its own
            if (registry.find(id).map(Call::ended).orElse(true)) orphans.add(id);
        }
        Set<String> confirmed = new HashSet<>(orphans);
        confirmed.retainAll(suspects);
        suspects = orphans;
        if (!confirmed.isEmpty()) log.info("deleting {} orphaned rtpengine session(s): {}", confirmed.size(), confirmed);
        deleteAll(confirmed);

        Set<String> live = new HashSet<>();
        for (Call c : registry.live()) {
            live.add(c.id);
            long since = c.media().rtpengineSinceNanos();
            if (since == 0 || since - listedAt >= 0) continue;
            if (!inRtpengine.contains(c.id)) {
                log.warn("call {}: rtpengine no longer has its session (restarted?); ending it (media-lost)", c.id);
                teardown.hangUp(c, "media-lost");
            } else {
                watchRestored(c);
            }
        }
        recoveriesSeen.keySet().retainAll(live);
        watched.keySet().retainAll(live);
    }

    /**
     * A confirmed call kept by a relay that came back: its media must flow again both ways through the relay, and the
     * browser must receive it (its `media-report`s grow), else media-lost.
     */
    private void watchRestored(Call c) {
        if (c.state() != CallState.CONFIRMED) return;
        long recoveries = media.relayRecoveries(c); // since the call was placed on its relay
        if (recoveries <= recoveriesSeen.getOrDefault(c.id, 0L)) return;
        MediaStats s = media.stats(c);
        if (s == null) return;
        Watch w = watched.get(c.id);
        if (w == null) {
            watched.put(c.id, new Watch(s));
            askBrowser(c);
            if (checkGapMs > 0 && !thread.isShutdown()) thread.schedule(() -> askBrowser(c), checkGapMs, TimeUnit.MILLISECONDS);
            return;
        }
        int rounds = w.nextRound();
        if (!(s.packetsToIms() > w.toIms && s.packetsToBrowser() > w.toBrowser)) {
            end(c, "its rtpengine came back but the call's media did not (to IMS " + w.toIms + " -> " + s.packetsToIms()
                    + ", to browser " + w.toBrowser + " -> " + s.packetsToBrowser() + ")");
            return;
        }
        List<Long> reports = w.reports();
        if (reports.size() >= 2) {
            long first = reports.get(0);
            long last = reports.get(reports.size() - 1);
            if (last > first) {
                passed(c, recoveries, "media flows again after its rtpengine came back (the browser received "
                        + (last - first) + " packets between two checks)");
            } else {
                end(c, "its rtpengine came back and relays, but the browser receives nothing (packets received "
                        + first + " -> " + last + ")");
            }
        } else if (rounds >= 2) {
            passed(c, recoveries, "media flows again through its rtpengine after it came back (the browser did not answer "
                    + "media-check: judged by rtpengine's counters)");
        } else {
            askBrowser(c); // a report is missing: one more check, judged at the next round
        }
    }

    /** `media-report` from the call's browser: its inbound packets so far; kept only while the call is watched. */
    public void browserReport(Call c, long packetsReceived) {
        Watch w = watched.get(c.id);
        if (w != null) w.report(packetsReceived);
    }

    private void askBrowser(Call c) {
        if (c.ended() || !watched.containsKey(c.id)) return;
        try {
            sink.toBrowser(c.owner, CallMessages.of("media-check", c.id));
        } catch (RuntimeException e) {
            log.debug("call {}: media-check not sent: {}", c.id, e.toString());
        }
    }

    private void passed(Call c, long recoveries, String why) {
        log.info("call {}: {}", c.id, why);
        recoveriesSeen.put(c.id, recoveries);
        watched.remove(c.id);
    }

    private void end(Call c, String why) {
        log.warn("call {}: {}; ending it (media-lost)", c.id, why);
        watched.remove(c.id);
        teardown.hangUp(c, "media-lost");
    }

    private void deleteAll(Iterable<String> ids) {
        for (String id : ids) {
            try {
                media.deleteOrphan(id);
            } catch (NgException e) {
                log.debug("delete of orphan {} failed: {}", id, e.getMessage());
            }
        }
    }

    /** Ends every live call (BYE/CANCEL toward IMS, `ended {reason: shutdown}`); CallMedia then sends the deletes. */
    @PreDestroy
    void shutdown() {
        thread.shutdownNow();
        List<Call> live = registry.live();
        if (!live.isEmpty()) log.info("shutdown: ending {} live call(s)", live.size());
        live.forEach(c -> teardown.hangUp(c, "shutdown"));
    }
}
