package org.webrtcims.gw.failover;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.webrtcims.gw.sip.ContactHandover;
import redis.clients.jedis.UnifiedJedis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Who registered each user, in Redis: the hash {@code gwfail:reg:<user>} (gateway id → the contact URI that gateway
 * registered). A login on this gateway removes, in its first REGISTER, the contacts of gateways that are dead: their
 * lease is gone, or it is no longer renewed (its time to live fell below what a live gateway's renewals keep it
 * above) — then the login waits until it lapses, at most lab.failover.lease-ms, since a browser usually logs in
 * again before the dead gateway's lease ran out.
 */
public class RedisContactHandover implements ContactHandover {
    private static final Logger log = LoggerFactory.getLogger(RedisContactHandover.class);

    private final UnifiedJedis redis;
    private final GatewayLease lease;

    public RedisContactHandover(UnifiedJedis redis, GatewayLease lease) {
        this.redis = redis;
        this.lease = lease;
    }

    static String regKey(String user) { return "gwfail:reg:" + user; }

    @Override
    public List<String> staleContacts(String user) {
        List<String> stale = new ArrayList<>();
        try {
            for (Map.Entry<String, String> e : redis.hgetAll(regKey(user)).entrySet()) {
                if (e.getKey().equals(lease.id())) continue;
                if (dead(e.getKey())) stale.add(e.getValue());
            }
        } catch (RuntimeException e) {
            log.warn("{}: Redis did not say which gateways registered the user: {}", user, e.getMessage());
        }
        return stale;
    }

    /**
     * Whether gateway {@code id} is dead: its lease is gone, or watched until it is renewed (alive) or lapses (dead),
     * at most lab.failover.lease-ms. A live gateway renews it every third of that, so a login waits at most about one
     * renewal period for a live one.
     */
    boolean dead(String id) {
        long prev = redis.pttl(GatewayLease.leaseKey(id));
        if (prev < 0) return prev == -2; // -2: no lease (gone); -1: a key without expiry, not a lease: leave it
        long until = System.currentTimeMillis() + lease.leaseMs() + 500;
        while (System.currentTimeMillis() < until) {
            try {
                Thread.sleep(Math.max(10, Math.min(prev + 20, 200)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            long ttl = redis.pttl(GatewayLease.leaseKey(id));
            if (ttl == -2) return true;
            if (ttl > prev) return false; // renewed: alive
            prev = ttl;
        }
        return false;
    }

    @Override
    public void registered(String user, String contact, List<String> removed) {
        try {
            redis.hset(regKey(user), lease.id(), contact);
            if (!removed.isEmpty()) {
                for (Map.Entry<String, String> e : redis.hgetAll(regKey(user)).entrySet()) {
                    if (removed.contains(e.getValue())) redis.hdel(regKey(user), e.getKey());
                }
                log.info("{}: registered here, {} contact(s) of a dead gateway removed in the same REGISTER", user, removed.size());
            }
        } catch (RuntimeException e) {
            log.warn("{}: Redis did not take the registration: {}", user, e.getMessage());
        }
    }

    @Override
    public void unregistered(String user) {
        try {
            redis.hdel(regKey(user), lease.id());
        } catch (RuntimeException e) {
            log.warn("{}: Redis did not drop the registration: {}", user, e.getMessage());
        }
    }
}
