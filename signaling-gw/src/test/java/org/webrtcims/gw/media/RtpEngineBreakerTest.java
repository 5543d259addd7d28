package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** rtpengine silent: the first command waits out its deadline, the next ones fail at once; a pong ends that. */
class RtpEngineBreakerTest {
    private FakeNgPeer peer;
    private NgClient ng;
    private RtpEngineBreaker breaker;
    private RtpEngineClient client;

    @BeforeEach
    void setUp() throws Exception {
        peer = new FakeNgPeer();
        ng = new NgClient(peer.address(), Duration.ofMillis(150), 1);
        breaker = new RtpEngineBreaker("test", Duration.ofMillis(50));
        client = Clients.over(ng, breaker, RtpEngineLegs.DEFAULT, "");
    }

    @AfterEach
    void tearDown() {
        breaker.close();
        ng.close();
        peer.close();
    }

    private static CompletableFuture<List<String>> listAsync(RtpEngineClient c) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return c.list();
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
    }

    @Test
    void silenceOpensItCommandsThenFailFastAndAPongClosesIt() throws Exception {
        NgException first = assertThrows(NgException.class, client::list);
        assertEquals(NgException.Kind.TIMEOUT, first.kind());
        assertEquals("list", peer.take().dict().get("command"));
        assertTrue(client.relays().unavailable());

        long t0 = System.nanoTime();
        NgException fast = assertThrows(NgException.class, () -> client.delete("c1", null));
        assertTrue(System.nanoTime() - t0 < TimeUnit.MILLISECONDS.toNanos(100), "refused without waiting");
        assertEquals(NgException.Kind.UNAVAILABLE, fast.kind());
        assertTrue(fast.getMessage().contains("not answering"), fast.getMessage());

        // Only the probe's pings reach rtpengine while it is open; answer one.
        FakeNgPeer.Request ping = peer.take();
        assertEquals("ping", ping.dict().get("command"), "nothing but pings while open");
        peer.reply(ping, Map.of("result", "pong"));
        long until = System.currentTimeMillis() + 3000;
        while (client.relays().unavailable() && System.currentTimeMillis() < until) Thread.sleep(10);
        assertFalse(client.relays().unavailable(), "a pong closes the breaker");

        CompletableFuture<List<String>> ok = listAsync(client);
        FakeNgPeer.Request req;
        do {
            req = peer.take();
        } while ("ping".equals(req.dict().get("command"))); // a late probe ping may still be in flight
        peer.reply(req, Map.of("result", "ok", "calls", List.of("a")));
        assertEquals(List.of("a"), ok.get(2, TimeUnit.SECONDS));
    }

    @Test
    void anErrorReplyIsAnAnswerAndDoesNotOpenIt() throws Exception {
        CompletableFuture<List<String>> f = listAsync(client);
        peer.reply(peer.take(), Map.of("result", "error", "error-reason", "Unknown call-id"));
        CompletionException e = assertThrows(CompletionException.class, () -> f.join());
        assertEquals(NgException.Kind.ERROR_RESULT, ((NgException) e.getCause()).kind());
        assertFalse(client.relays().unavailable());
        assertNull(peer.take(200), "no probe while closed");
    }
}
