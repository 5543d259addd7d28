package org.webrtcims.gw.failover;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.media.NgException;
import org.webrtcims.gw.media.RtpEngineRelay;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Ends the calls of a gateway that died (docs/scale-out.md "A gateway host that does not come back"). Every live
 * gateway looks each round for another gateway whose lease ({@link GatewayLease}) is gone; the first to claim it
 * ({@code gwfail:claim:<id>}, SET NX) takes its stored dialogs ({@link RedisDialogStore}) and ends each: a BYE toward
 * IMS on the stored dialog ({@link StoredDialog#bye}) and a delete of its rtpengine session on every relay. What was
 * ended is kept for the browser, per session token, in {@code gwfail:ended:<token>} (10 minutes).
 */
public class GatewayTakeover implements org.webrtcims.gw.call.FailoverNotes {
    private static final Logger log = LoggerFactory.getLogger(GatewayTakeover.class);
    static final long ENDED_TTL_SECONDS = 600;
    static final String REASON = "gateway-failed";

    /** Sends the BYE of a stored dialog; returns when it went (its answer is logged by the sender). */
    public interface ByeSender { void send(StoredDialog d) throws Exception; }

    private final UnifiedJedis redis;
    private final GatewayLease lease;
    private final ByeSender bye;
    private final java.util.function.Supplier<List<RtpEngineRelay>> relays;
    private final ObjectMapper json;

    public GatewayTakeover(UnifiedJedis redis, GatewayLease lease, ByeSender bye,
                           java.util.function.Supplier<List<RtpEngineRelay>> relays, ObjectMapper json) {
        this.redis = redis;
        this.lease = lease;
        this.bye = bye;
        this.relays = relays;
        this.json = json;
    }

    static String claimKey(String id) { return "gwfail:claim:" + id; }

    static String endedKey(String token) { return "gwfail:ended:" + token; }

    /** One round: renews this gateway's lease, then takes over every dead gateway nobody claimed. Returns the calls ended. */
    public List<StoredDialog> round() {
        if (!lease.renew()) return List.of();
        List<StoredDialog> ended = new ArrayList<>();
        try {
            for (String other : lease.others()) {
                if (lease.alive(other)) continue;
                String claimed = redis.set(claimKey(other), lease.id(), SetParams.setParams().nx().px(lease.leaseMs() * 20));
                if (!"OK".equals(claimed)) continue;
                ended.addAll(takeOver(other));
            }
        } catch (RuntimeException e) {
            log.warn("failover round: Redis failed: {}", e.getMessage());
        }
        return ended;
    }

    @Override
    public List<Map<String, String>> takeEnded(String token) {
        String key = endedKey(RedisDialogStore.ownerKey(token));
        List<Map<String, String>> out = new ArrayList<>();
        try {
            List<String> notes = redis.lrange(key, 0, -1);
            redis.del(key);
            for (String n : notes) {
                Map<?, ?> m = json.readValue(n, Map.class);
                out.add(Map.of("callId", String.valueOf(m.get("callId")), "reason", String.valueOf(m.get("reason"))));
            }
        } catch (Exception e) {
            log.warn("failover notes of a session not read: {}", e.getMessage());
        }
        return out;
    }

    private List<StoredDialog> takeOver(String dead) {
        Map<String, String> calls = redis.hgetAll(RedisDialogStore.callsKey(dead));
        log.info("gateway {} lost its lease: gateway {} ends its {} calls", dead, lease.id(), calls.size());
        List<StoredDialog> ended = new ArrayList<>();
        for (Map.Entry<String, String> e : calls.entrySet()) {
            StoredDialog d;
            try {
                d = json.readValue(e.getValue(), StoredDialog.class);
            } catch (Exception ex) {
                log.warn("gateway {}: the stored dialog of call {} is unreadable, skipped: {}", dead, e.getKey(), ex.getMessage());
                continue;
            }
            end(dead, d);
            ended.add(d);
        }
        redis.del(RedisDialogStore.callsKey(dead));
        redis.srem(GatewayLease.GATEWAYS, dead);
        return ended;
    }

    private void end(String dead, StoredDialog d) {
        boolean sent = false;
        try {
            bye.send(d);
            sent = true;
        } catch (Exception ex) {
            log.warn("gateway {}: BYE for call {} not sent: {}", dead, d.callId(), ex.toString());
        }
        int deleted = 0;
        for (RtpEngineRelay r : relays.get()) {
            Map<String, Object> cmd = new LinkedHashMap<>();
            cmd.put("command", "delete");
            cmd.put("call-id", d.ngCallId());
            cmd.put("delete-delay", 0);
            try {
                r.ng().send(cmd);
                deleted++;
            } catch (NgException ex) {
                // "Unknown call-id" on the relays that did not hold it, or a relay that is down
            }
        }
        try {
            String note = json.writeValueAsString(Map.of("callId", d.callId(), "reason", REASON));
            redis.rpush(endedKey(d.owner()), note);
            redis.expire(endedKey(d.owner()), ENDED_TTL_SECONDS);
        } catch (Exception ex) {
            log.warn("gateway {}: the end of call {} is not kept for its browser: {}", dead, d.callId(), ex.toString());
        }
        log.info("gateway {}'s call {} ({}) ended: BYE {}, rtpengine delete answered by {} relay(s)", dead, d.callId(), d.user(),
                sent ? "sent" : "NOT sent", deleted);
    }
}
