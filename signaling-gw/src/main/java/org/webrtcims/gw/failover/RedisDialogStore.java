package org.webrtcims.gw.failover;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.call.DialogStore;
import redis.clients.jedis.UnifiedJedis;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Keeps this gateway's confirmed calls in Redis, in the hash {@code gwfail:calls:<gateway id>} (call-id →
 * {@link StoredDialog} as JSON, its owner the SHA-256 of the session token): written when a call is confirmed, removed when it ends. The writes go on a thread
 * of their own (the hooks are called under the call's lock, on the SIP thread); a failed write is logged and the call
 * goes on (its failover then ends it only if an earlier write made it).
 */
public class RedisDialogStore implements DialogStore {
    private static final Logger log = LoggerFactory.getLogger(RedisDialogStore.class);

    private final UnifiedJedis redis;
    private final String key;
    private final String ngPrefix;
    private final ObjectMapper json;
    private final ExecutorService writer = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "failover-store");
        t.setDaemon(true);
        return t;
    });

    /** {@code ngPrefix}: this gateway's rtpengine session prefix (its sessions are prefix + call-id). */
    public RedisDialogStore(UnifiedJedis redis, String gatewayId, String ngPrefix, ObjectMapper json) {
        this.redis = redis;
        this.key = callsKey(gatewayId);
        this.ngPrefix = ngPrefix;
        this.json = json;
    }

    static String callsKey(String gatewayId) { return "gwfail:calls:" + gatewayId; }

    /**
     * What Redis holds of a browser session's token: its SHA-256 (hex), never the token, which is the session's
     * bearer credential (whoever reads Redis must not be able to act as the browser).
     */
    static String ownerKey(String token) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(token.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256 in this JVM", e);
        }
    }

    @Override
    public void confirmed(String callId, String owner, String user, javax.sip.Dialog dialog) {
        StoredDialog d;
        try {
            d = StoredDialog.of(callId, ownerKey(owner), user, dialog, ngPrefix + callId);
        } catch (RuntimeException e) {
            log.warn("call {}: its dialog is not kept for a failover: {}", callId, e.toString());
            return;
        }
        writer.execute(() -> {
            try {
                redis.hset(key, callId, json.writeValueAsString(d));
            } catch (Exception e) {
                log.warn("call {}: Redis did not take its dialog: {}", callId, e.getMessage());
            }
        });
    }

    @Override
    public void ended(String callId) {
        writer.execute(() -> {
            try {
                redis.hdel(key, callId);
            } catch (RuntimeException e) {
                log.warn("call {}: Redis did not drop its dialog: {}", callId, e.getMessage());
            }
        });
    }

    /** Waits for the writes queued so far (shutdown, tests). */
    void flush() throws Exception {
        writer.submit(() -> { }).get();
    }

    /** Shutdown: the calls ended by the gateway's own shutdown are removed before it goes (at most 2 s). */
    void stop() {
        writer.shutdown();
        try {
            if (!writer.awaitTermination(2, java.util.concurrent.TimeUnit.SECONDS)) writer.shutdownNow();
        } catch (InterruptedException e) {
            writer.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
