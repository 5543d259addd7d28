package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class NgClientTest {
    private FakeNgPeer peer;
    private NgClient client;

    @BeforeEach
    void setUp() throws Exception {
        peer = new FakeNgPeer();
    }

    @AfterEach
    void tearDown() {
        if (client != null) {
            client.close();
        }
        peer.close();
    }

    private NgClient client(long timeoutMs, int attempts) {
        client = new NgClient(peer.address(), Duration.ofMillis(timeoutMs), attempts);
        return client;
    }

    private CompletableFuture<Map<String, Object>> sendAsync(Map<String, Object> cmd) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return client.send(cmd);
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
    }

    private static NgException ngFailure(CompletableFuture<?> f) {
        CompletionException e = assertThrows(CompletionException.class, f::join);
        return (NgException) e.getCause();
    }

    @Test
    void sendsCookieSpaceBencodeAndReturnsReply() throws Exception {
        client(2000, 1);
        var result = sendAsync(Map.of("command", "ping"));
        FakeNgPeer.Request req = peer.take();
        assertEquals(Map.of("command", "ping"), req.dict());
        String wire = new String(req.raw(), StandardCharsets.US_ASCII);
        assertEquals(req.cookie() + " d7:command4:pinge", wire);
        peer.reply(req, Map.of("result", "pong"));
        assertEquals(Map.of("result", "pong"), result.get(5, TimeUnit.SECONDS));
    }

    @Test
    void matchesConcurrentRepliesByCookieWhenAnsweredOutOfOrder() throws Exception {
        client(3000, 1);
        var first = sendAsync(Map.of("command", "query", "call-id", "A"));
        var second = sendAsync(Map.of("command", "query", "call-id", "B"));
        FakeNgPeer.Request r1 = peer.take();
        FakeNgPeer.Request r2 = peer.take();
        assertNotEquals(r1.cookie(), r2.cookie());
        // Answer in reverse order of arrival; each reply echoes the call-id it belongs to.
        peer.reply(r2, Map.of("result", "ok", "for", r2.dict().get("call-id")));
        peer.reply(r1, Map.of("result", "ok", "for", r1.dict().get("call-id")));
        assertEquals("A", first.get(5, TimeUnit.SECONDS).get("for"));
        assertEquals("B", second.get(5, TimeUnit.SECONDS).get("for"));
    }

    @Test
    void retransmitsSameCookieAndPayloadWhenFirstDatagramIsLost() throws Exception {
        client(300, 3);
        var result = sendAsync(Map.of("command", "offer", "call-id", "c", "sdp", "v=0\r\n"));
        FakeNgPeer.Request lost = peer.take();        // dropped: never answered
        FakeNgPeer.Request again = peer.take(2000);
        assertArrayEquals(lost.raw(), again.raw());
        peer.reply(again, Map.of("result", "ok", "sdp", "v=0\r\n"));
        assertEquals("v=0\r\n", result.get(5, TimeUnit.SECONDS).get("sdp"));
        assertNull(peer.take(500), "no further retransmission after the reply");
    }

    @Test
    void eachCommandsRoundTripAndFailureAreMetered() throws Exception {
        org.webrtcims.gw.metrics.GatewayMetrics metrics = org.webrtcims.gw.metrics.GatewayMetrics.none();
        client = new NgClient(peer.address(), Duration.ofMillis(150), 1, metrics, new org.webrtcims.gw.metrics.WarmupCalls());
        var ok = sendAsync(Map.of("command", "ping"));
        peer.reply(peer.take(), Map.of("result", "pong"));
        ok.get(5, TimeUnit.SECONDS);
        var lost = sendAsync(Map.of("command", "query", "call-id", "x"));
        peer.take();
        assertEquals(NgException.Kind.TIMEOUT, ngFailure(lost).kind());
        var r = metrics.registry();
        assertEquals(1, r.find("gw.ng.latency").tag("command", "ping").timer().count());
        assertEquals(1, r.find("gw.ng.latency").tag("command", "query").timer().count());
        assertEquals(1, r.find("gw.ng.errors").tags("command", "query", "kind", "timeout").counter().count());
        assertNull(r.find("gw.ng.errors").tag("command", "ping").counter());
    }

    @Test
    void timesOutAfterAllAttempts() throws Exception {
        client(150, 2);
        var result = sendAsync(Map.of("command", "ping"));
        FakeNgPeer.Request a = peer.take();
        FakeNgPeer.Request b = peer.take();
        assertArrayEquals(a.raw(), b.raw());
        NgException e = ngFailure(result);
        assertEquals(NgException.Kind.TIMEOUT, e.kind());
        assertNull(peer.take(300), "exactly `attempts` datagrams");
    }

    @Test
    void errorResultCarriesReason() throws Exception {
        client(2000, 1);
        var result = sendAsync(Map.of("command", "query", "call-id", "nope"));
        FakeNgPeer.Request req = peer.take();
        peer.reply(req, Map.of("result", "error", "error-reason", "Unknown call-id"));
        NgException e = ngFailure(result);
        assertEquals(NgException.Kind.ERROR_RESULT, e.kind());
        assertEquals("Unknown call-id", e.getMessage());
    }

    @Test
    void warningIsNotAnError() throws Exception {
        client(2000, 1);
        var result = sendAsync(Map.of("command", "delete", "call-id", "x"));
        FakeNgPeer.Request req = peer.take();
        peer.reply(req, Map.of("result", "ok", "warning", "Call-ID not found or tags didn't match"));
        assertEquals("ok", result.get(5, TimeUnit.SECONDS).get("result"));
    }

    @Test
    void undecodableReplyIsProtocolError() throws Exception {
        client(2000, 1);
        var result = sendAsync(Map.of("command", "ping"));
        FakeNgPeer.Request req = peer.take();
        peer.replyRaw(req, (req.cookie() + " d6:result").getBytes(StandardCharsets.US_ASCII));
        assertEquals(NgException.Kind.PROTOCOL, ngFailure(result).kind());
    }

    @Test
    void replyWithoutResultIsProtocolError() throws Exception {
        client(2000, 1);
        var result = sendAsync(Map.of("command", "ping"));
        peer.reply(peer.take(), Map.of("sdp", "v=0"));
        assertEquals(NgException.Kind.PROTOCOL, ngFailure(result).kind());
    }

    @Test
    void ignoresRepliesWithUnknownCookie() throws Exception {
        client(2000, 1);
        var result = sendAsync(Map.of("command", "ping"));
        FakeNgPeer.Request req = peer.take();
        peer.reply(new FakeNgPeer.Request("stale_1", Map.of(), new byte[0], req.from()), Map.of("result", "error"));
        peer.reply(req, Map.of("result", "pong"));
        assertEquals("pong", result.get(5, TimeUnit.SECONDS).get("result"));
    }
}
