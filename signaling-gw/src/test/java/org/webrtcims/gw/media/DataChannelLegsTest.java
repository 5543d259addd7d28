package org.webrtcims.gw.media;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sdp.DataChannelSdp;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * One call's door to the data-channel endpoint (a UDP stand-in answering its control commands): the offer and
 * answer commands with the gateway's session prefix, refusals (the call goes on without data channels), the drop and
 * the release with the call's last counters.
 */
class DataChannelLegsTest {
    private static final String BROWSER_OFFER = String.join("\r\n",
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0",
            "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "a=mid:1", "a=sctp-port:5000", "a=dcmap:1000 label=\"chat\"", "");
    private static final String EP_BROWSER = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 198.18.0.1\r\na=setup:passive\r\n";
    private static final String EP_IMS = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31002 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 127.0.0.1\r\na=setup:actpass\r\na=dcmap:1000 label=\"chat\"\r\n";
    private static final String IMS_ANSWER = "v=0\r\ns=-\r\nm=audio 6000 RTP/AVP 111\r\nm=application 7000 UDP/DTLS/SCTP webrtc-datachannel\r\na=setup:active\r\na=dcmap:1000 label=\"chat\"\r\n";
    private static final String IMS_OFFER = "v=0\r\ns=-\r\nm=audio 6000 RTP/AVP 111 8\r\nm=application 7000 UDP/DTLS/SCTP webrtc-datachannel\r\na=setup:actpass\r\na=dcmap:1000 label=\"chat\"\r\n";

    private final EndpointStandIn standIn = new EndpointStandIn();
    private final FakeNgPeer endpoint = standIn.endpoint;
    private final DataChannelLegs legs = standIn.legs;
    private final DataChannelSdp.Endpoint c1 = standIn.c1;

    DataChannelLegsTest() throws Exception {
    }

    @AfterEach
    void tearDown() { standIn.close(); }

    /** Runs a step that talks to the endpoint; the stand-in answers its one command with reply; returns the step's result. */
    private <T> T withEndpoint(Supplier<T> step, String command, Map<String, Object> reply, Map<String, Object> expect) throws Exception {
        return standIn.withEndpoint(step, command, reply, expect);
    }

    private void browserOfferTaken() throws Exception {
        DataChannelSdp.Sdps r = withEndpoint(() -> c1.offerFromBrowser(BROWSER_OFFER), "offer",
                Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS), Map.of("sdp", BROWSER_OFFER));
        assertEquals(new DataChannelSdp.Sdps(EP_BROWSER, EP_IMS), r, "'sdp' goes to the browser, 'ims-sdp' to the IMS side");
    }

    @Test
    void moTheBrowsersOfferAndTheImsAnswerGoToTheEndpoint() throws Exception {
        browserOfferTaken();
        assertTrue(legs.has("c1"), "the call has a session at the endpoint");
        assertTrue(withEndpoint(() -> c1.answer(IMS_ANSWER, true), "answer", Map.of("result", "ok", "channels", List.of(1000L)),
                Map.of("sdp", IMS_ANSWER)), "the endpoint took the IMS answer");
    }

    @Test
    void mtTheImsOfferIsMarkedAsTheImsSides() throws Exception {
        DataChannelSdp.Sdps r = withEndpoint(() -> c1.offerFromIms(IMS_OFFER), "offer",
                Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS), Map.of("sdp", IMS_OFFER, "from", "ims"));
        assertEquals(EP_BROWSER, r.browser());
    }

    @Test
    void anEndpointRefusalIsNoSessionAndNoFailure() throws Exception {
        assertNull(withEndpoint(() -> c1.offerFromBrowser(BROWSER_OFFER), "offer",
                Map.of("result", "error", "error-reason", "no free UDP port"), Map.of()), "a refused offer gives the SDP step nothing");
        assertFalse(legs.has("c1"), "no session at the endpoint");
        assertNull(legs.stats("c1"));
    }

    @Test
    void aRefusedAnswerDeletesTheSession() throws Exception {
        browserOfferTaken();
        CompletableFuture<Boolean> f = CompletableFuture.supplyAsync(() -> c1.answer(IMS_ANSWER, true));
        FakeNgPeer.Request r = endpoint.take();
        assertEquals("answer", r.dict().get("command"));
        endpoint.reply(r, Map.of("result", "error", "error-reason", "no channel"));
        FakeNgPeer.Request del = endpoint.take();
        assertEquals("delete", del.dict().get("command"), "a refused answer ends the endpoint's session");
        endpoint.reply(del, Map.of("result", "ok"));
        assertFalse(f.get(5, TimeUnit.SECONDS), "the SDP step hears the refusal");
    }

    @Test
    void aDropDeletesTheSessionOnce() throws Exception {
        browserOfferTaken();
        withEndpoint(() -> { c1.drop("the IMS side rejected the data-channel section"); return null; }, "delete", Map.of("result", "ok"), Map.of());
        c1.drop("again");
        assertNull(endpoint.take(200), "a session already deleted is not deleted again");
    }

    @Test
    void theReleaseDeletesTheSessionAndKeepsItsLastCounters() throws Exception {
        browserOfferTaken();
        withEndpoint(() -> { legs.release("c1"); return null; }, "delete", Map.of("result", "ok",
                "browser-to-ims", Map.of("messages", 20L, "bytes", 900L, "dropped", 0L, "relay-us-p50", 15L),
                "ims-to-browser", Map.of("messages", 21L, "bytes", 950L, "dropped", 0L),
                "legs", Map.of("browser", Map.of("state", "up"), "ims", Map.of("state", "up")),
                "channels", List.of(Map.of("browser-stream", 1000L, "ims-stream", 1000L, "label", "chat", "ordered", "yes", "negotiated", "yes"))),
                Map.of());
        DataChannelStats s = legs.stats("c1");
        assertNotNull(s, "an ended call keeps its last counters");
        assertEquals(20, s.toIms().messages());
        assertEquals(15L, s.toIms().relayUsP50());
        assertEquals(21, s.toBrowser().messages());
        assertEquals("chat", s.channels().get(0).label());
        assertNull(endpoint.take(200), "stats of an ended call must not query the endpoint");
        legs.release("c1");
        assertNull(endpoint.take(200), "a second release must not delete again");
    }

    @Test
    void aCallThatNeverOfferedASectionHasNoSession() throws Exception {
        legs.release("c2");
        assertNull(endpoint.take(200), "an audio-only call must not reach the endpoint");
        assertNull(legs.stats("c2"));
        assertFalse(legs.has("c2"));
    }

    @Test
    void withoutAnEndpointEveryOfferIsRefused() {
        DataChannelLegs off = DataChannelLegs.off();
        assertFalse(off.on());
        assertNull(off.forCall("c3").offerFromBrowser(BROWSER_OFFER), "no endpoint configured: the browser's section is refused");
        assertNull(off.forCall("c4").offerFromIms(IMS_OFFER), "no endpoint configured: the IMS side's section is refused");
        assertFalse(off.has("c3"));
    }
}
