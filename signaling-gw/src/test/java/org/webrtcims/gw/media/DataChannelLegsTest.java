package org.webrtcims.gw.media;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Each SDP split between rtpengine (a recording stand-in for the call layer's step) and the data-channel endpoint
 * (a UDP stand-in answering its control commands), and joined again: MO, MT, refusals, release.
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

    private FakeNgPeer endpoint;
    private DataChannelLegs legs;
    /** What the rtpengine step was given, in order. */
    private final List<String> toRtp = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        endpoint = new FakeNgPeer();
        legs = new DataChannelLegs(new DataChannelClient(new NgClient(endpoint.address(), Duration.ofMillis(300), 1), "gw5070-"));
    }

    @AfterEach
    void tearDown() { endpoint.close(); }

    /** The rtpengine stand-in: records its input, returns it with an audio port (its m-lines unchanged). */
    private UnaryOperator<String> rtp() {
        return sdp -> {
            toRtp.add(sdp);
            // as MediaLeg's sdp/Bundle does for a one-m-line group: a group of the audio alone
            return sdp.replace("m=audio 9 ", "m=audio 30000 ").replace("s=-\r\n", "s=-\r\na=group:BUNDLE 0\r\n");
        };
    }

    /** Runs a step that talks to the endpoint; the stand-in answers its one command with reply. */
    private String withEndpoint(Supplier<String> step, String command, Map<String, Object> reply) throws Exception {
        CompletableFuture<String> f = CompletableFuture.supplyAsync(step);
        FakeNgPeer.Request r = endpoint.take();
        assertEquals(command, r.dict().get("command"), "the endpoint's command");
        assertEquals("gw5070-c1", r.dict().get("call-id"), "the call-id carries the gateway's session prefix");
        endpoint.reply(r, reply);
        return f.get(5, TimeUnit.SECONDS);
    }

    @Test
    void moTheSectionGoesToTheEndpointTheRestToRtpengineAndBothComeBackInOrder() throws Exception {
        String imsOffer = withEndpoint(() -> legs.fromBrowserOffer("c1", BROWSER_OFFER, rtp()), "offer",
                Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS));
        assertFalse(toRtp.get(0).contains("m=application"), "rtpengine got the data-channel section: " + toRtp.get(0));
        assertTrue(imsOffer.indexOf("m=audio 30000") < imsOffer.indexOf("m=application 31002"), "audio first, as offered: " + imsOffer);
        assertTrue(imsOffer.contains("a=ice-lite\r\nm=audio"), "the IMS offer says a=ice-lite at session level: " + imsOffer);
        assertTrue(imsOffer.contains("a=dcmap:1000 label=\"chat\""));

        String browserAnswer = withEndpoint(() -> legs.fromImsAnswer("c1", IMS_ANSWER, rtp()), "answer",
                Map.of("result", "ok", "channels", List.of(1000L)));
        assertFalse(toRtp.get(1).contains("m=application"), "rtpengine got the IMS answer's data-channel section");
        assertTrue(browserAnswer.contains("m=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 198.18.0.1"), browserAnswer);
        assertTrue(browserAnswer.indexOf("m=audio") < browserAnswer.indexOf("m=application"));
        assertFalse(browserAnswer.contains("a=group:BUNDLE"), "no BUNDLE group toward the browser with a data channel: " + browserAnswer);
        assertTrue(legs.has("c1"));
    }

    @Test
    void aReofferKeepsTheSectionsWithoutAskingTheEndpointAgain() throws Exception {
        moTheSectionGoesToTheEndpointTheRestToRtpengineAndBothComeBackInOrder();
        String again = legs.fromBrowserOffer("c1", BROWSER_OFFER.replace("a=mid:0", "a=mid:0\r\na=sendonly"), rtp());
        assertTrue(again.contains("m=application 31002"), "the re-offer toward IMS keeps the endpoint's section: " + again);
        assertNull(endpoint.take(200), "a re-offer must not reach the endpoint (one offer/answer per call)");
    }

    @Test
    void anEndpointRefusalLeavesTheCallWithoutDataChannels() throws Exception {
        String imsOffer = withEndpoint(() -> legs.fromBrowserOffer("c1", BROWSER_OFFER, rtp()), "offer",
                Map.of("result", "error", "error-reason", "no free UDP port"));
        assertFalse(imsOffer.contains("m=application"), "a refused section is not offered to IMS: " + imsOffer);
        assertFalse(imsOffer.contains("a=ice-lite"));
        String browserAnswer = legs.fromImsAnswer("c1", "v=0\r\ns=-\r\nm=audio 6000 RTP/AVP 111\r\n", rtp());
        assertTrue(browserAnswer.endsWith("m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\n"),
                "the browser's answer rejects the section (port 0, its mid): " + browserAnswer);
    }

    @Test
    void anImsAnswerThatRejectsTheSectionDeletesTheSession() throws Exception {
        withEndpoint(() -> legs.fromBrowserOffer("c1", BROWSER_OFFER, rtp()), "offer", Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS));
        String browserAnswer = withEndpoint(() -> legs.fromImsAnswer("c1", IMS_ANSWER.replace("m=application 7000", "m=application 0"), rtp()),
                "delete", Map.of("result", "ok"));
        assertTrue(browserAnswer.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel"), browserAnswer);
    }

    @Test
    void mtTheImsOfferBecomesABrowserOfferWithAMidAndIceLite() throws Exception {
        String browserOffer = withEndpoint(() -> legs.fromImsOffer("c1", IMS_OFFER, rtp()), "offer",
                Map.of("result", "ok", "sdp", EP_BROWSER.replace("passive", "actpass"), "ims-sdp", EP_IMS.replace("actpass", "passive")));
        assertFalse(toRtp.get(0).contains("m=application"));
        assertTrue(browserOffer.contains("a=ice-lite\r\nm=audio"), browserOffer);
        assertFalse(browserOffer.contains("a=group:BUNDLE"), "no BUNDLE group toward the browser with a data channel: " + browserOffer);
        assertTrue(browserOffer.contains("m=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\n"), "the browser needs a mid: " + browserOffer);
        String imsAnswer = withEndpoint(() -> legs.fromBrowserAnswer("c1",
                "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\na=setup:active\r\n", rtp()),
                "answer", Map.of("result", "ok", "channels", List.of(1000L)));
        assertTrue(imsAnswer.indexOf("m=audio") < imsAnswer.indexOf("m=application 31002"), imsAnswer);
        assertTrue(imsAnswer.contains("a=setup:passive"));
    }

    @Test
    void theReleaseDeletesTheSessionAndKeepsItsLastCounters() throws Exception {
        moTheSectionGoesToTheEndpointTheRestToRtpengineAndBothComeBackInOrder();
        CompletableFuture<Void> f = CompletableFuture.runAsync(() -> legs.release("c1"));
        FakeNgPeer.Request r = endpoint.take();
        assertEquals("delete", r.dict().get("command"));
        endpoint.reply(r, Map.of("result", "ok", "browser-to-ims", Map.of("messages", 20L, "bytes", 900L, "dropped", 0L, "relay-us-p50", 15L),
                "ims-to-browser", Map.of("messages", 21L, "bytes", 950L, "dropped", 0L),
                "legs", Map.of("browser", Map.of("state", "up"), "ims", Map.of("state", "up")),
                "channels", List.of(Map.of("browser-stream", 1000L, "ims-stream", 1000L, "label", "chat", "ordered", "yes", "negotiated", "yes"))));
        f.get(5, TimeUnit.SECONDS);
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
    void anSdpWithoutADataChannelSectionIsRtpenginesAlone() throws Exception {
        String audio = "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n";
        assertEquals(rtp().apply(audio), legs.fromBrowserOffer("c2", audio, rtp()), "an audio-only SDP is rtpengine's as it is");
        assertNull(endpoint.take(200), "an audio-only call must not reach the endpoint");
        assertNull(legs.stats("c2"));
    }

    @Test
    void withoutAnEndpointADataChannelSectionIsRefusedAndTheCallGoesOn() {
        DataChannelLegs off = DataChannelLegs.off();
        String imsOffer = off.fromBrowserOffer("c3", BROWSER_OFFER, rtp());
        assertFalse(toRtp.get(0).contains("m=application"), "rtpengine must not get the section it cannot terminate");
        assertFalse(imsOffer.contains("m=application"), "no data channel is offered to IMS: " + imsOffer);
        String answer = off.fromImsAnswer("c3", "v=0\r\ns=-\r\nm=audio 6000 RTP/AVP 111\r\n", rtp());
        assertTrue(answer.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1"), "the browser's section is rejected: " + answer);
        String toBrowser = off.fromImsOffer("c4", IMS_OFFER, rtp());
        assertFalse(toBrowser.contains("m=application"), "an IMS data channel is not offered to the browser: " + toBrowser);
        String toIms = off.fromBrowserAnswer("c4", "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n", rtp());
        assertTrue(toIms.indexOf("m=audio") < toIms.indexOf("m=application 0 UDP/DTLS/SCTP webrtc-datachannel"),
                "the IMS side gets its section back rejected, in its place: " + toIms);
    }
}
