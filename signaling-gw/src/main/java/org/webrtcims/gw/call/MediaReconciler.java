package org.webrtcims.gw.call;

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
 * next, it is ended with `media-lost` too (a restored call whose media stays dead); once both grow it is left alone.
 */
@Component
public class MediaReconciler {
    private static final Logger log = LoggerFactory.getLogger(MediaReconciler.class);

    private final CallRegistry registry;
    private final CallMedia media;
    private final CallTeardown teardown;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "media-reconciler");
        t.setDaemon(true);
        return t;
    });
    /** Orphans of the last round: deleted when still orphans in the next. */
    private Set<String> suspects = Set.of();
    /** Per call whose media flowed again after its relay came back: the relay's recoveries then (watched on a further rise). */
    private final java.util.Map<String, Long> recoveriesSeen = new java.util.HashMap<>();
    /** Calls on a relay that came back: their counters {toIms, toBrowser} at the last round. */
    private final java.util.Map<String, long[]> watched = new java.util.HashMap<>();

    public MediaReconciler(CallRegistry registry, CallMedia media, CallTeardown teardown, GatewayProperties props) {
        this.registry = registry;
        this.media = media;
        this.teardown = teardown;
        long every = props.getRtpengine().getReconcileMs();
        thread.execute(this::startupCleanup);
        if (every > 0) thread.scheduleWithFixedDelay(this::roundSafely, every, every, TimeUnit.MILLISECONDS);
    }

    /** Sessions of an earlier run of this gateway (same prefix), left when it stopped without cleaning up. */
    void startupCleanup() {
        try {
            List<String> left = media.sessions().stream().filter(id -> registry.find(id).isEmpty()).toList();
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
            long since = c.rtpengineSinceNanos;
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

    /** A confirmed call kept by a relay that came back: its media must flow again both ways, else media-lost. */
    private void watchRestored(Call c) {
        if (c.state != CallState.CONFIRMED) return;
        long recoveries = media.relayRecoveries(c); // since the call was placed on its relay
        if (recoveries <= recoveriesSeen.getOrDefault(c.id, 0L)) return;
        MediaStats s = media.stats(c);
        if (s == null) return;
        long[] now = {s.packetsToIms(), s.packetsToBrowser()};
        long[] before = watched.put(c.id, now);
        if (before == null) return;
        if (now[0] > before[0] && now[1] > before[1]) {
            log.info("call {}: media flows again after its rtpengine came back", c.id);
            recoveriesSeen.put(c.id, recoveries);
            watched.remove(c.id);
        } else {
            log.warn("call {}: its rtpengine came back but the call's media did not (to IMS {} -> {}, to browser {} -> {}); ending it (media-lost)",
                    c.id, before[0], now[0], before[1], now[1]);
            watched.remove(c.id);
            teardown.hangUp(c, "media-lost");
        }
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
