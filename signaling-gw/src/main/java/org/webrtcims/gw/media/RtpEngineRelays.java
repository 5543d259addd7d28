package org.webrtcims.gw.media;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.metrics.SetupTimeline;

/**
 * The rtpengine instances of this gateway (docs/scale-out.md), each behind its breaker (RtpEngineRelay): which
 * relay holds which call, and their health. A new call (its first offer) goes to the relay holding the fewest of
 * this gateway's calls among those whose breaker is closed (ties in turn), and every later command of that call to
 * the same relay (call affinity, kept until the call's delete). One relay is the plain case. Calls are named by the
 * gateway's call-id; what the commands say is NgCommands' business.
 */
public class RtpEngineRelays implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RtpEngineRelays.class);
    private final List<RtpEngineRelay> relays;
    /** Call affinity: the relay that holds each call (gateway call-id), from its first offer to its delete. */
    private final Map<String, RtpEngineRelay> holder = new ConcurrentHashMap<>();
    private final AtomicInteger turn = new AtomicInteger();
    /** Per call: its relay's recoveries when the call was placed on it (recoveriesOf counts from there). */
    private final Map<String, Long> recoveriesAtOffer = new ConcurrentHashMap<>();
    /** Per relay: {its uptime at the last check (s), restarts seen (its uptime went down, or another rtpengine answers)}. */
    private final Map<RtpEngineRelay, long[]> restarts = new ConcurrentHashMap<>();
    /** Per relay: the interfaces its `statistics` listed at the last check, in its order (which rtpengine answers). */
    private final Map<RtpEngineRelay, String> identity = new ConcurrentHashMap<>();

    /** Each call's first offer and answer, sent and answered (the set-up timeline, issue #26). */
    private final SetupTimeline timeline;

    /** At least one relay; each breaker's probe pings its own relay. */
    public RtpEngineRelays(List<RtpEngineRelay> relays) {
        this(relays, SetupTimeline.off());
    }

    /** As above, marking each call's first ng offer and answer on {@code timeline}. */
    public RtpEngineRelays(List<RtpEngineRelay> relays, SetupTimeline timeline) {
        this.timeline = timeline;
        if (relays == null || relays.isEmpty()) throw new IllegalArgumentException("at least one rtpengine is needed");
        this.relays = List.copyOf(relays);
        for (RtpEngineRelay r : this.relays) r.breaker().probeWith(r::ping);
    }

    /** The relays, in the order configured. */
    public List<RtpEngineRelay> all() { return relays; }

    /**
     * One ng command of a call, to the relay that holds it. opensCall: the call's first offer (no to-tag), which
     * picks a relay when none holds the call yet; any other command of a call no relay holds is refused (with
     * several relays; one relay always gets it).
     */
    Map<String, Object> send(String callId, boolean opensCall, Map<String, Object> cmd) throws NgException {
        RtpEngineRelay r = holder.get(callId);
        if (r == null) {
            if (relays.size() == 1) {
                r = relays.get(0);
            } else if (!opensCall) {
                throw new NgException(NgException.Kind.PROTOCOL, "no rtpengine holds call " + callId + " ('"
                        + cmd.get(NgFlags.COMMAND) + "' before its offer)");
            } else {
                r = pick();
            }
            if (opensCall) {
                RtpEngineRelay raced = holder.putIfAbsent(callId, r);
                if (raced != null) r = raced;
                else recoveriesAtOffer.put(callId, recoveries(r));
            }
        }
        Object command = cmd.get(NgFlags.COMMAND);
        boolean offer = NgFlags.OFFER.equals(command);
        if (!offer && !NgFlags.ANSWER.equals(command)) return r.send(cmd);
        timeline.mark(callId, offer ? SetupTimeline.Mark.NG_OFFER_SENT : SetupTimeline.Mark.NG_ANSWER_SENT);
        Map<String, Object> reply = r.send(cmd);
        timeline.mark(callId, offer ? SetupTimeline.Mark.NG_OFFER_REPLY : SetupTimeline.Mark.NG_ANSWER_REPLY);
        return reply;
    }

    /** True while a relay holds the call (from its first offer to its delete). */
    boolean holds(String callId) { return holder.containsKey(callId); }

    /** The call's delete went out: no relay holds it any more. */
    void release(String callId) {
        holder.remove(callId);
        recoveriesAtOffer.remove(callId);
    }

    /** The relay for a new call: the fewest of this gateway's calls among those answering, ties in turn. */
    private RtpEngineRelay pick() {
        Map<RtpEngineRelay, Integer> load = new HashMap<>();
        holder.values().forEach(r -> load.merge(r, 1, Integer::sum));
        int start = Math.floorMod(turn.getAndIncrement(), relays.size());
        RtpEngineRelay best = null;
        int bestLoad = Integer.MAX_VALUE;
        for (int i = 0; i < relays.size(); i++) {
            RtpEngineRelay r = relays.get((start + i) % relays.size());
            if (r.breaker().isOpen()) continue;
            int n = load.getOrDefault(r, 0);
            if (n < bestLoad) {
                best = r;
                bestLoad = n;
            }
        }
        return best != null ? best : relays.get(start); // all down: its breaker refuses at once
    }

    /** The ng address ("host:port") of the relay holding a call, or null when none does (before its offer, after its delete). */
    public String relayOf(String callId) {
        RtpEngineRelay r = holder.get(callId);
        return r == null ? null : r.name();
    }

    /**
     * How often the relay holding a call answered again after being taken for down (its breaker's recoveries) or
     * restarted, since the call was placed on it; 0 when no relay holds it. A rise means the relay may have
     * restarted under the call (docs/scale-out.md).
     */
    public long recoveriesOf(String callId) {
        RtpEngineRelay r = holder.get(callId);
        return r == null ? 0 : Math.max(0, recoveries(r) - recoveriesAtOffer.getOrDefault(callId, 0L));
    }

    /** The relay's recoveries and restarts so far. */
    private long recoveries(RtpEngineRelay r) {
        return r.breaker().recoveries() + restarts.getOrDefault(r, new long[2])[1];
    }

    /**
     * Asks every relay for its `statistics` and notes a restart when its uptime went down since the last check, or
     * when another rtpengine now answers its address: a restart shorter than the ng timeout never opens the breaker,
     * and a standby that took a dead relay's address over (docs/scale-out.md "A relay host that does not come back")
     * opens none either and may have been started in the same second, so {@link #recoveriesOf} counts both. Which
     * rtpengine answers is told by its interfaces (name/address, in its configured order: each relay of the hosts
     * layout lists its own first, then the one it stands by for). Relays that do not answer are skipped (their
     * breaker notes the outage).
     */
    public void noteRestarts() {
        for (RtpEngineRelay r : relays) {
            long uptime;
            String interfaces;
            try {
                Object stats = r.send(NgCommands.statistics()).get("statistics");
                Object total = stats instanceof Map<?, ?> m ? m.get("totalstatistics") : null;
                Object up = total instanceof Map<?, ?> t ? t.get("uptime") : null;
                if (up == null) continue;
                uptime = Long.parseLong(String.valueOf(up).trim());
                interfaces = interfacesOf(stats);
            } catch (NgException | NumberFormatException e) {
                continue;
            }
            long[] seen = restarts.computeIfAbsent(r, k -> new long[] {uptime, 0});
            String before = interfaces == null ? null : identity.put(r, interfaces);
            if (uptime < seen[0]) {
                seen[1]++;
            } else if (before != null && !before.equals(interfaces)) {
                seen[1]++;
                log.warn("rtpengine {}: another rtpengine answers its address now (interfaces {} -> {}): its calls are "
                        + "watched as after a restart", r.name(), before, interfaces);
            }
            seen[0] = uptime;
        }
    }

    /** The interfaces of a `statistics` answer as "name/address,…" in its order; null when it lists none. */
    private static String interfacesOf(Object stats) {
        Object list = stats instanceof Map<?, ?> m ? m.get("interfaces") : null;
        if (!(list instanceof List<?> l) || l.isEmpty()) return null;
        StringBuilder out = new StringBuilder();
        for (Object o : l) {
            if (!(o instanceof Map<?, ?> i)) continue;
            if (out.length() > 0) out.append(',');
            out.append(i.get("name")).append('/').append(i.get("address"));
        }
        return out.toString();
    }

    /** This gateway's calls per relay (ng address → calls it holds now), in the configured order. */
    public Map<String, Integer> callsPerRelay() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (RtpEngineRelay r : relays) out.put(r.name(), 0);
        holder.values().forEach(r -> out.merge(r.name(), 1, Integer::sum));
        return out;
    }

    /**
     * True while every rtpengine is taken for down: no new call can get media, commands fail at once
     * (RtpEngineBreaker). With several relays, one of them down is {@link #someUnavailable()}.
     */
    public boolean unavailable() { return relays.stream().allMatch(r -> r.breaker().isOpen()); }

    /** True while at least one relay is taken for down (its calls' commands fail at once). */
    public boolean someUnavailable() { return relays.stream().anyMatch(r -> r.breaker().isOpen()); }

    /** True when every rtpengine answered pong. */
    public boolean ping() {
        boolean all = true;
        for (RtpEngineRelay r : relays) all &= r.ping();
        return all;
    }

    /** Each relay's ng address → whether it answered pong, in the configured order. */
    public Map<String, Boolean> pingEach() {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (RtpEngineRelay r : relays) out.put(r.name(), r.ping());
        return out;
    }

    /** Closes every relay's ng socket and breaker. */
    @Override
    public void close() {
        for (RtpEngineRelay r : relays) {
            r.breaker().close();
            r.ng().close();
        }
    }
}
