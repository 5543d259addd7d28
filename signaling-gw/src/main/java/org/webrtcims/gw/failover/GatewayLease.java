package org.webrtcims.gw.failover;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.params.SetParams;

import java.util.Set;

/**
 * This gateway's lease in Redis: the key {@code gwfail:lease:<id>} with a time to live of lab.failover.lease-ms,
 * written again every third of it. A gateway whose lease is gone is dead for the others ({@link GatewayTakeover}).
 * Every gateway that ever held a lease is in the set {@code gwfail:gateways}.
 */
public class GatewayLease {
    private static final Logger log = LoggerFactory.getLogger(GatewayLease.class);
    static final String GATEWAYS = "gwfail:gateways";

    private final UnifiedJedis redis;
    private final String id;
    private final long leaseMs;
    private volatile boolean held;

    public GatewayLease(UnifiedJedis redis, String id, long leaseMs) {
        this.redis = redis;
        this.id = id;
        this.leaseMs = leaseMs;
    }

    public String id() { return id; }

    static String leaseKey(String id) { return "gwfail:lease:" + id; }

    /** Writes the lease again; false (and logged once) while Redis does not answer. */
    public boolean renew() {
        try {
            redis.set(leaseKey(id), String.valueOf(System.currentTimeMillis()), SetParams.setParams().px(leaseMs));
            redis.sadd(GATEWAYS, id);
            if (!held) log.info("gateway {} holds its failover lease in Redis ({} ms)", id, leaseMs);
            held = true;
            return true;
        } catch (RuntimeException e) {
            if (held) log.warn("gateway {}: Redis did not take the failover lease: {}", id, e.getMessage());
            held = false;
            return false;
        }
    }

    /** The other gateways that ever held a lease. */
    Set<String> others() {
        Set<String> all = new java.util.HashSet<>(redis.smembers(GATEWAYS));
        all.remove(id);
        return all;
    }

    /** Whether gateway {@code other} holds its lease now. */
    boolean alive(String other) { return redis.exists(leaseKey(other)); }

    long leaseMs() { return leaseMs; }
}
