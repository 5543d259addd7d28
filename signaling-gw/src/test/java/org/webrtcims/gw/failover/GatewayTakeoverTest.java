package org.webrtcims.gw.failover;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.webrtcims.gw.call.DialogStore;
import org.webrtcims.gw.media.NgClient;
import org.webrtcims.gw.media.RtpEngineBreaker;
import org.webrtcims.gw.media.RtpEngineRelay;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

import javax.sip.address.Address;
import javax.sip.header.CallIdHeader;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * The gateway failover against a real Redis (Debian's redis-server, which the lab installs: harness/lib/deps.sh):
 * a gateway's confirmed calls are stored, its lease lapses, exactly one other gateway ends each stored call (BYE on
 * the stored dialog, rtpengine delete on every relay, a note for the browser), and ended calls are not ended twice.
 */
class GatewayTakeoverTest {
    static Process redisServer;
    static int port;
    UnifiedJedis redis;
    final ObjectMapper json = new ObjectMapper();

    @BeforeAll
    static void startRedis() throws Exception {
        Path bin = Path.of("/usr/bin/redis-server");
        assertTrue(Files.isExecutable(bin), "redis-server is missing: the lab installs it (harness/lib/deps.sh, `./lab deps`)");
        try (ServerSocket s = new ServerSocket(0)) { port = s.getLocalPort(); }
        redisServer = new ProcessBuilder(bin.toString(), "--bind", "127.0.0.1", "--port", String.valueOf(port),
                "--save", "", "--appendonly", "no").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long until = System.currentTimeMillis() + 10_000;
        while (true) {
            try (JedisPooled j = new JedisPooled("127.0.0.1", port)) {
                if ("PONG".equals(j.ping())) return;
            } catch (RuntimeException e) {
                if (System.currentTimeMillis() > until) fail("redis-server on 127.0.0.1:" + port + " did not answer PING within 10 s: " + e.getMessage());
                Thread.sleep(50);
            }
        }
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redisServer != null) {
            redisServer.destroy();
            redisServer.waitFor();
        }
    }

    @BeforeEach
    void clean() {
        redis = new JedisPooled("127.0.0.1", port);
        redis.flushAll();
    }

    private static javax.sip.Dialog dialog(String sipCallId, long cseq) throws Exception {
        javax.sip.Dialog d = mock(javax.sip.Dialog.class);
        CallIdHeader cid = mock(CallIdHeader.class);
        when(cid.getCallId()).thenReturn(sipCallId);
        when(d.getCallId()).thenReturn(cid);
        Address local = mock(Address.class);
        when(local.toString()).thenReturn("<sip:alice@ims.lab>");
        Address remote = mock(Address.class);
        when(remote.toString()).thenReturn("<sip:ue1@ims.lab>");
        when(d.getLocalParty()).thenReturn(local);
        when(d.getRemoteParty()).thenReturn(remote);
        when(d.getLocalTag()).thenReturn("lt-" + sipCallId);
        when(d.getRemoteTag()).thenReturn("rt-" + sipCallId);
        Address target = mock(Address.class);
        javax.sip.address.URI targetUri = mock(javax.sip.address.URI.class);
        when(targetUri.toString()).thenReturn("sip:ue1@198.18.16.2:5080");
        when(target.getURI()).thenReturn(targetUri);
        when(d.getRemoteTarget()).thenReturn(target);
        when(d.getRouteSet()).thenReturn(Collections.emptyIterator());
        when(d.getLocalSeqNumber()).thenReturn(cseq);
        return d;
    }

    private static RtpEngineRelay relay(NgClient ng) {
        return new RtpEngineRelay(ng, mock(RtpEngineBreaker.class));
    }

    @Test
    void aDeadGatewaysConfirmedCallsAreEndedOnceByOneLiveGateway() throws Exception {
        GatewayLease leaseA = new GatewayLease(redis, "gwA", 1000);
        RedisDialogStore storeA = new RedisDialogStore(redis, "gwA", "gw1-", json);
        assertTrue(leaseA.renew(), "gateway A takes its lease");
        storeA.confirmed("c1", "g1.tokAlice", "alice", dialog("sip-c1", 1));
        storeA.confirmed("c2", "g1.tokAlice", "alice", dialog("sip-c2", 2));
        storeA.confirmed("c3", "g1.tokBob", "bob", dialog("sip-c3", 1));
        storeA.ended("c2"); // ended while A lived: nobody may end it again
        storeA.flush();

        List<StoredDialog> byes = Collections.synchronizedList(new ArrayList<>());
        NgClient ng1 = mock(NgClient.class);
        NgClient ng2 = mock(NgClient.class);
        when(ng1.send(any())).thenReturn(Map.of("result", "ok"));
        when(ng2.send(any())).thenThrow(new org.webrtcims.gw.media.NgException(org.webrtcims.gw.media.NgException.Kind.ERROR_RESULT, "Unknown call-id"));
        GatewayTakeover b = new GatewayTakeover(redis, new GatewayLease(redis, "gwB", 300), byes::add,
                () -> List.of(relay(ng1), relay(ng2)), json);
        GatewayTakeover c = new GatewayTakeover(redis, new GatewayLease(redis, "gwC", 300), byes::add, List::of, json);

        assertTrue(leaseA.renew(), "gateway A renews its lease");
        assertEquals(List.of(), b.round(), "gateway A still holds its lease: none of its calls is touched");
        assertEquals(List.of(), byes, "no BYE while A lives");

        Thread.sleep(1200); // A's lease (1000 ms) lapses; B and C renew theirs each round
        List<StoredDialog> endedB = b.round();
        List<StoredDialog> endedC = c.round();
        List<String> ids = new ArrayList<>();
        for (StoredDialog d : endedB) ids.add(d.callId());
        for (StoredDialog d : endedC) ids.add(d.callId());
        Collections.sort(ids);
        assertEquals(List.of("c1", "c3"), ids, "A's live calls c1 and c3 are ended, c2 (ended before) is not");
        assertTrue(endedB.isEmpty() || endedC.isEmpty(), "one gateway took A over, not both: B " + endedB + ", C " + endedC);
        assertEquals(2, byes.size(), "one BYE per call: " + byes);
        StoredDialog c1 = byes.stream().filter(d -> d.callId().equals("c1")).findFirst().orElseThrow();
        assertEquals("sip-c1", c1.sipCallId());
        assertEquals("lt-sip-c1", c1.localTag());
        assertEquals("rt-sip-c1", c1.remoteTag());
        assertEquals(1, c1.localCseq());
        assertEquals("gw1-c1", c1.ngCallId(), "the relay session is named with A's session prefix");

        if (!endedB.isEmpty()) {
            verify(ng1, times(2)).send(any());
            verify(ng2, times(2)).send(any()); // asked too: it answers "Unknown call-id"
            verify(ng1).send(Map.of("command", "delete", "call-id", "gw1-c1", "delete-delay", 0));
        }
        assertEquals(List.of("{\"callId\":\"c1\",\"reason\":\"gateway-failed\"}"),
                redis.lrange(GatewayTakeover.endedKey(RedisDialogStore.ownerKey("g1.tokAlice")), 0, -1).stream().map(this::sorted).toList(),
                "the browser session of alice is told which call ended and why");
        GatewayTakeover taker = endedB.isEmpty() ? c : b;
        assertEquals(List.of(Map.of("callId", "c1", "reason", "gateway-failed")), taker.takeEnded("g1.tokAlice"),
                "asked with alice's old token (the page's logout on a live gateway), the ended call and its reason");
        assertEquals(List.of(), taker.takeEnded("g1.tokAlice"), "told once");
        assertEquals(List.of(), taker.takeEnded("g1.someoneElse"), "another token learns nothing");
        assertFalse(redis.exists(RedisDialogStore.callsKey("gwA")), "A's stored calls are gone after the takeover");
        for (String k : redis.keys("*")) {
            assertFalse(k.contains("tokAlice") || k.contains("tokBob"), "a session token in a Redis key: " + k);
            if ("hash".equals(redis.type(k))) redis.hgetAll(k).values().forEach(v -> assertFalse(v.contains("g1.tok"), "a session token in Redis (" + k + "): " + v));
        }
        assertFalse(redis.smembers(GatewayLease.GATEWAYS).contains("gwA"), "A is no longer a gateway to watch");

        Thread.sleep(150);
        assertEquals(List.of(), b.round(), "a later round ends nothing again");
        assertEquals(List.of(), c.round(), "a later round ends nothing again");
        assertEquals(2, byes.size(), "no second BYE");
    }

    private String sorted(String s) {
        try {
            return json.writeValueAsString(new java.util.TreeMap<>(json.readValue(s, Map.class)));
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + s, e);
        }
    }

    @Test
    void aLiveGatewayIsNeverTakenOver() throws Exception {
        GatewayLease leaseA = new GatewayLease(redis, "gwA", 1000);
        RedisDialogStore storeA = new RedisDialogStore(redis, "gwA", "gw1-", json);
        List<StoredDialog> byes = new ArrayList<>();
        GatewayTakeover a = new GatewayTakeover(redis, leaseA, byes::add, List::of, json);
        GatewayTakeover b = new GatewayTakeover(redis, new GatewayLease(redis, "gwB", 300), byes::add, List::of, json);
        a.round();
        storeA.confirmed("c1", "g1.tok", "alice", dialog("sip-c1", 1));
        storeA.flush();
        for (int i = 0; i < 8; i++) { // 8 x 200 ms: longer than A's lease, which A's rounds keep
            a.round();
            b.round();
            Thread.sleep(200);
        }
        assertEquals(List.of(), byes, "A renews its lease every round: nobody ends its call");
        assertTrue(redis.hexists(RedisDialogStore.callsKey("gwA"), "c1"), "A's call stays stored");
    }

    @Test
    void aLoginRemovesOnlyTheContactsOfDeadGateways() throws Exception {
        GatewayLease leaseA = new GatewayLease(redis, "gwA", 600);
        GatewayLease leaseB = new GatewayLease(redis, "gwB", 600);
        GatewayLease leaseC = new GatewayLease(redis, "gwC", 600);
        RedisContactHandover a = new RedisContactHandover(redis, leaseA);
        RedisContactHandover b = new RedisContactHandover(redis, leaseB);
        RedisContactHandover c = new RedisContactHandover(redis, leaseC);
        leaseA.renew();
        leaseB.renew();
        leaseC.renew();
        a.registered("erin", "sip:r1@198.18.16.101:5070", List.of());
        b.registered("erin", "sip:r2@198.18.16.102:5070", List.of());
        // A dies now (no more renewals); B keeps renewing in the background, as its rounds do
        java.util.concurrent.ScheduledExecutorService renewB = java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
        renewB.scheduleWithFixedDelay(leaseB::renew, 0, 200, java.util.concurrent.TimeUnit.MILLISECONDS);
        try {
            long t0 = System.currentTimeMillis();
            List<String> stale = c.staleContacts("erin");
            long waited = System.currentTimeMillis() - t0;
            assertEquals(List.of("sip:r1@198.18.16.101:5070"), stale,
                    "A's contact is stale (its lease lapsed while the login watched it), B's is live (renewed)");
            assertTrue(waited < 600 + 1000, "the login waited at most about A's lease: " + waited + " ms");
            c.registered("erin", "sip:r3@198.18.16.103:5070", stale);
            assertEquals(Map.of("gwB", "sip:r2@198.18.16.102:5070", "gwC", "sip:r3@198.18.16.103:5070"),
                    redis.hgetAll(RedisContactHandover.regKey("erin")), "A's binding is gone from the record, B's and C's stay");
            assertEquals(List.of(), c.staleContacts("erin"), "nothing stale any more");
            c.unregistered("erin");
            assertEquals(Map.of("gwB", "sip:r2@198.18.16.102:5070"), redis.hgetAll(RedisContactHandover.regKey("erin")),
                    "a de-register drops this gateway's binding only");
        } finally {
            renewB.shutdownNow();
        }
    }

    @Test
    void withoutLabFailoverRedisThereIsNoStoreAndNoRedisConnection() {
        new ApplicationContextRunner().withUserConfiguration(FailoverConfig.class).run(ctx -> {
            assertTrue(ctx.getBeansOfType(DialogStore.class).isEmpty(), "no DialogStore: the call layer's hooks do nothing");
            assertTrue(ctx.getBeansOfType(UnifiedJedis.class).isEmpty(), "no Redis client");
        });
    }
}
