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

/** Two rtpengine stand-ins behind one client: new calls spread, each call's commands stay on its relay. */
class RtpEngineRelaysTest {
    private static final String SDP = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
    private static final Map<String, Object> OK_SDP = Map.of("result", "ok", "sdp", "v=0\r\nm=audio 30000 RTP/AVP 111\r\n");

    private FakeNgPeer a;
    private FakeNgPeer b;
    private RtpEngineClient client;

    interface NgCall<T> {
        T call() throws NgException;
    }

    @BeforeEach
    void setUp() throws Exception {
        a = new FakeNgPeer();
        b = new FakeNgPeer();
        client = new RtpEngineClient(new RtpEngineRelays(List.of(relay(a), relay(b))), RtpEngineLegs.DEFAULT, "gw-");
    }

    private static RtpEngineRelay relay(FakeNgPeer peer) {
        return new RtpEngineRelay(new NgClient(peer.address(), Duration.ofMillis(300), 1),
                new RtpEngineBreaker(String.valueOf(peer.address()), Duration.ofMillis(50)));
    }

    @AfterEach
    void tearDown() {
        client.relays().close();
        a.close();
        b.close();
    }

    private static <T> CompletableFuture<T> async(NgCall<T> call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (NgException e) {
                throw new CompletionException(e);
            }
        });
    }

    /** The next request on a peer other than a breaker's probe ping, or null within the wait. */
    private static FakeNgPeer.Request next(FakeNgPeer peer, long millis) throws InterruptedException {
        long end = System.currentTimeMillis() + millis;
        for (long left = millis; left > 0; left = end - System.currentTimeMillis()) {
            FakeNgPeer.Request r = peer.take(left);
            if (r == null || !"ping".equals(r.dict().get("command"))) return r;
        }
        return null;
    }

    /** Runs one command, answers it on whichever peer got it; returns that peer. */
    private <T> FakeNgPeer answered(NgCall<T> call, Map<String, Object> reply) throws Exception {
        CompletableFuture<T> f = async(call);
        FakeNgPeer got = null;
        FakeNgPeer.Request req = null;
        for (int i = 0; i < 200 && req == null; i++) {
            got = i % 2 == 0 ? a : b;
            req = next(got, 10);
        }
        assertTrue(req != null, "a relay got the command");
        got.reply(req, reply);
        f.get(5, TimeUnit.SECONDS);
        assertNull(next(other(got), 100), "only one relay gets a call's command");
        return got;
    }

    private FakeNgPeer other(FakeNgPeer p) {
        return p == a ? b : a;
    }

    @Test
    void newCallsAlternateAndEveryCommandOfACallGoesToItsRelay() throws Exception {
        FakeNgPeer first = answered(() -> client.offerFromBrowser("c1", "f1", null, SDP, null, false), OK_SDP);
        FakeNgPeer second = answered(() -> client.offerFromIms("c2", "f2", null, SDP, false), OK_SDP);
        assertTrue(first != second, "the second call goes to the other relay");
        assertEquals(first == a ? 1 : 0, client.relays().callsPerRelay().get(name(a)));
        assertEquals(1, client.relays().callsPerRelay().get(name(b)));
        assertEquals(name(first), client.relays().relayOf("c1"));

        assertEquals(first, answered(() -> client.answerFromIms("c1", "f1", "t1", SDP, "active", false), OK_SDP));
        assertEquals(second, answered(() -> client.answerFromBrowser("c2", "f2", "t2", SDP), OK_SDP));
        assertEquals(first, answered(() -> client.offerFromBrowser("c1", "f1", "t1", SDP, null, false), OK_SDP));
        assertEquals(second, answered(() -> client.query("c2", "t2"), Map.of("result", "ok", "tags", Map.of())));
        assertEquals(first, answered(() -> { client.playDtmf("c1", "f1", '5', 100); return 0; }, Map.of("result", "ok")));
        assertEquals(first, answered(() -> client.delete("c1", null), Map.of("result", "ok")));
        assertNull(client.relays().relayOf("c1"), "affinity ends with the delete");

        // c1's relay now holds none: the next call goes there (fewest calls first).
        assertEquals(first, answered(() -> client.offerFromBrowser("c3", "f3", null, SDP, null, false), OK_SDP));
    }

    @Test
    void fourCallsInARowGoTwoAndTwo() throws Exception {
        for (String id : List.of("c1", "c2", "c3", "c4")) answered(() -> client.offerFromBrowser(id, "f", null, SDP, null, false), OK_SDP);
        assertEquals(Map.of(name(a), 2, name(b), 2), client.relays().callsPerRelay());
    }

    private static Map<String, Object> uptime(String s) {
        return Map.of("result", "ok", "statistics", Map.of("totalstatistics", Map.of("uptime", s)));
    }

    /** Both relays answer one `statistics` each. */
    private void statistics(String upA, String upB) throws Exception {
        CompletableFuture<Integer> f = async(() -> { client.relays().noteRestarts(); return 0; });
        a.reply(next(a, 2000), uptime(upA));
        b.reply(next(b, 2000), uptime(upB));
        f.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aRelayWhoseUptimeWentDownRestartedUnderItsCalls() throws Exception {
        FakeNgPeer holder = answered(() -> client.offerFromBrowser("c1", "f1", null, SDP, null, false), OK_SDP);
        statistics("100", "100");
        assertEquals(0, client.relays().recoveriesOf("c1"));
        statistics(holder == a ? "2" : "101", holder == b ? "2" : "101");
        assertEquals(1, client.relays().recoveriesOf("c1"), "the holding relay restarted");
        statistics("5", "5"); // the holder's uptime grew (2 -> 5); only the other relay restarted (101 -> 5)
        assertEquals(1, client.relays().recoveriesOf("c1"));
        assertEquals(0, client.relays().recoveriesOf("nobody"));
    }

    /** A `statistics` answer as rtpengine 10.5 gives it: its uptime and its interfaces (name, address), in its order. */
    private static Map<String, Object> stats(String up, String... interfaces) {
        List<Map<String, Object>> list = new java.util.ArrayList<>();
        for (String i : interfaces) list.add(Map.of("name", i.split("/")[0], "address", i.split("/")[1], "ports", Map.of("used", 0)));
        return Map.of("result", "ok", "statistics", Map.of("totalstatistics", Map.of("uptime", up), "interfaces", list));
    }

    /** Both relays answer one `statistics` each with the given answers. */
    private void statistics(Map<String, Object> fromA, Map<String, Object> fromB) throws Exception {
        CompletableFuture<Integer> f = async(() -> { client.relays().noteRestarts(); return 0; });
        a.reply(next(a, 2000), fromA);
        b.reply(next(b, 2000), fromB);
        f.get(5, TimeUnit.SECONDS);
    }

    @Test
    void aStandbyThatTookARelaysAddressOverCountsAsARestartOfThatRelay() throws Exception {
        // relay 1 lists its own interface first, relay 2 its own; both started in the same second (same uptime)
        FakeNgPeer holder = answered(() -> client.offerFromBrowser("c1", "f1", null, SDP, null, false), OK_SDP);
        String own = holder == a ? "r1/198.18.16.11" : "r2/198.18.16.12";
        String standby = holder == a ? "r2/198.18.16.12" : "r1/198.18.16.11";
        Map<String, Object> holderBefore = stats("100", own, standby);
        Map<String, Object> otherRelay = stats("100", standby, own);
        statistics(holder == a ? holderBefore : otherRelay, holder == b ? holderBefore : otherRelay);
        assertEquals(0, client.relays().recoveriesOf("c1"), "the same rtpengine answered both checks");
        // the holder's host died; its standby answers its address now: uptime grew as the clock did, interfaces differ
        Map<String, Object> standbyNow = stats("110", standby, own);
        statistics(standbyNow, standbyNow);
        assertEquals(1, client.relays().recoveriesOf("c1"),
                "another rtpengine (its interfaces in another order) answering the holder's address must count as a restart under its calls");
        statistics(standbyNow, standbyNow);
        assertEquals(1, client.relays().recoveriesOf("c1"), "the same standby answering again is no new restart");
    }

    @Test
    void aRelayThatListsNoInterfacesIsJudgedByItsUptimeAlone() throws Exception {
        answered(() -> client.offerFromBrowser("c1", "f1", null, SDP, null, false), OK_SDP);
        statistics(stats("100", "r1/10.0.0.1"), stats("100", "r1/10.0.0.1"));
        statistics(uptime("101"), uptime("101"));
        statistics(stats("102", "r1/10.0.0.1"), stats("102", "r1/10.0.0.1"));
        assertEquals(0, client.relays().recoveriesOf("c1"), "a statistics answer without interfaces (older rtpengine) is no change of rtpengine");
    }

    @Test
    void aCommandForACallNoRelayHoldsIsRefusedNotGuessed() {
        NgException e = assertThrows(NgException.class, () -> client.query("nobody", "t"));
        assertEquals(NgException.Kind.PROTOCOL, e.kind());
    }

    @Test
    void aSilentRelayTakesNoNewCallsAndTheOtherKeepsServing() throws Exception {
        // a relay that gets no answer: its breaker opens on the timeout
        CompletableFuture<String> lost = async(() -> client.offerFromBrowser("c1", "f1", null, SDP, null, false));
        FakeNgPeer.Request ra = next(a, 150);
        FakeNgPeer silent = ra != null ? a : b;
        FakeNgPeer alive = other(silent);
        CompletionException failed = assertThrows(CompletionException.class, lost::join);
        assertEquals(NgException.Kind.TIMEOUT, ((NgException) failed.getCause()).kind());
        assertFalse(client.relays().unavailable(), "one relay still answers");
        assertTrue(client.relays().someUnavailable());

        for (String id : List.of("c2", "c3", "c4")) {
            assertEquals(alive, answered(() -> client.offerFromBrowser(id, "f", null, SDP, null, false), OK_SDP));
        }
        // c1 stays with its relay: refused at once while that one is down
        NgException down = assertThrows(NgException.class, () -> client.query("c1", "f1"));
        assertEquals(NgException.Kind.UNAVAILABLE, down.kind());
        // a partial list would make the silent relay's calls look lost: list fails instead
        assertThrows(NgException.class, client::list);
    }

    @Test
    void listIsEveryRelaysSessionsAndAnUnknownSessionIsDeletedEverywhere() throws Exception {
        CompletableFuture<List<String>> listed = async(client::list);
        a.reply(a.take(), Map.of("result", "ok", "calls", List.of("gw-x", "other-y")));
        b.reply(b.take(), Map.of("result", "ok", "calls", List.of("gw-z")));
        assertEquals(List.of("x", "z"), listed.get(5, TimeUnit.SECONDS));

        CompletableFuture<Object> del = async(() -> client.delete("z", null));
        FakeNgPeer.Request da = a.take();
        a.reply(da, Map.of("result", "error", "error-reason", "Unknown call-id"));
        FakeNgPeer.Request db = b.take();
        b.reply(db, Map.of("result", "ok"));
        del.get(5, TimeUnit.SECONDS);
        assertEquals("gw-z", da.dict().get("call-id"));
        assertEquals("gw-z", db.dict().get("call-id"));
    }

    /** The relay set on its own: a call's first offer places it, later commands follow, release ends it. */
    @Test
    void theRelaySetPlacesACallOnItsOpeningCommandOnlyAndReleasesIt() throws Exception {
        RtpEngineRelays set = client.relays();
        NgException early = assertThrows(NgException.class, () -> set.send("c9", false, Map.of("command", "answer")));
        assertEquals(NgException.Kind.PROTOCOL, early.kind(), "no relay holds c9 before its offer");
        assertFalse(set.holds("c9"));
        FakeNgPeer got = answered(() -> set.send("c9", true, Map.of("command", "offer")), Map.of("result", "ok"));
        assertTrue(set.holds("c9"));
        assertEquals(name(got), set.relayOf("c9"));
        set.release("c9");
        assertFalse(set.holds("c9"), "released with the call's delete");
        assertEquals(0, set.recoveriesOf("c9"));
    }

    @Test
    void aRelaySetNeedsARelay() {
        assertThrows(IllegalArgumentException.class, () -> new RtpEngineRelays(List.of()));
    }

    private static String name(FakeNgPeer p) {
        return p.address().getHostString() + ":" + p.address().getPort();
    }
}
