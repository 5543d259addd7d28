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
 * Real-time text through {@link DataChannelLegs} and {@link RealTimeText} (RFC 8865 ↔ RFC 4103): the browser's T.140
 * channel becomes `m=text` toward IMS through the endpoint's `text-offer`, the IMS answer's `m=text` goes to
 * `text-answer` and never to rtpengine or the browser. The endpoint is a UDP stand-in answering its control commands.
 */
class DataChannelLegsTextTest {
    private static final String BROWSER_OFFER = String.join("\r\n",
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0",
            "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "a=mid:1", "a=sctp-port:5000",
            "a=dcmap:1001 label=\"rtt\";subprotocol=\"t140\"", "");
    private static final String EP_BROWSER = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 198.18.0.1\r\na=setup:passive\r\n";
    private static final String EP_IMS = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31002 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 127.0.0.1\r\na=setup:actpass\r\n";
    private static final String EP_TEXT = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=text 31004 RTP/AVP 100 98\r\nc=IN IP4 127.0.0.1\r\n"
            + "a=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\na=fmtp:98 cps=30\r\n";
    private static final String IMS_ANSWER = "v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 111\r\n"
            + "m=text 6002 RTP/AVP 100 98\r\na=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n";

    private FakeNgPeer endpoint;
    private DataChannelLegs legs;
    private final List<String> toRtp = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        endpoint = new FakeNgPeer();
        legs = new DataChannelLegs(new DataChannelClient(new NgClient(endpoint.address(), Duration.ofMillis(300), 1), "gw5070-"));
    }

    @AfterEach
    void tearDown() { endpoint.close(); }

    private UnaryOperator<String> rtp() {
        return sdp -> {
            toRtp.add(sdp);
            return sdp.replace("m=audio 9 ", "m=audio 30000 ");
        };
    }

    /** Runs a step; the stand-in answers its commands, in order, with the replies given (command, reply, …). */
    private String withEndpoint(Supplier<String> step, Object... commandsAndReplies) throws Exception {
        CompletableFuture<String> f = CompletableFuture.supplyAsync(step);
        for (int i = 0; i < commandsAndReplies.length; i += 2) {
            FakeNgPeer.Request r = endpoint.take();
            assertEquals(commandsAndReplies[i], r.dict().get("command"), "command " + (i / 2 + 1) + " to the endpoint");
            assertEquals("gw5070-c1", r.dict().get("call-id"), "the call-id carries the gateway's session prefix");
            if ("text-offer".equals(r.dict().get("command")) && r.dict().get("from") == null) {
                assertEquals(1001L, ((Number) r.dict().get("channel")).longValue(), "the browser's T.140 stream id goes with text-offer");
            }
            if ("text-offer".equals(r.dict().get("command")) && r.dict().get("from") != null) {
                assertEquals("ims", r.dict().get("from"), "an IMS offer's text goes with from: ims");
                assertTrue(String.valueOf(r.dict().get("sdp")).contains("m=text 6002"), "the IMS offer goes to the endpoint: " + r.dict());
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> reply = (Map<String, Object>) commandsAndReplies[i + 1];
            endpoint.reply(r, reply);
        }
        String out = f.get(5, TimeUnit.SECONDS);
        assertNull(endpoint.take(100), "no further command to the endpoint");
        return out;
    }

    private String moOffer() throws Exception {
        return withEndpoint(() -> legs.fromBrowserOffer("c1", BROWSER_OFFER, rtp()),
                "offer", Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS),
                "text-offer", Map.of("result", "ok", "sdp", EP_TEXT));
    }

    @Test
    void moATextOnlyChannelBecomesMTextTowardImsWithoutMApplication() throws Exception {
        String imsOffer = moOffer();
        assertFalse(imsOffer.contains("m=application"), "a T.140 channel alone needs no m=application toward IMS: " + imsOffer);
        assertTrue(imsOffer.indexOf("m=audio 30000") < imsOffer.indexOf("m=text 31004 RTP/AVP 100 98"), "audio, then m=text last: " + imsOffer);
        assertTrue(imsOffer.contains("a=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000"), "RFC 4103 with red: " + imsOffer);
        assertFalse(toRtp.get(0).contains("m=application"), "rtpengine never gets the data-channel section");

        String browserAnswer = withEndpoint(() -> legs.fromImsAnswer("c1", IMS_ANSWER, rtp()),
                "text-answer", Map.of("result", "ok", "redundancy", 2L, "t140-pt", 98L, "red-pt", 100L));
        assertFalse(toRtp.get(1).contains("m=text"), "rtpengine got the IMS answer's m=text: " + toRtp.get(1));
        assertFalse(browserAnswer.contains("m=text"), "the browser offered no m=text, its answer has none: " + browserAnswer);
        assertTrue(browserAnswer.indexOf("m=audio") < browserAnswer.indexOf("m=application 31001"), "the browser's m-line order: " + browserAnswer);
        assertTrue(legs.has("c1"), "the session goes on although the IMS side got no m=application");
    }

    @Test
    void moAReofferKeepsMTextAndItsAnswerDoesNotReachTheEndpointAgain() throws Exception {
        moATextOnlyChannelBecomesMTextTowardImsWithoutMApplication();
        String again = legs.fromBrowserOffer("c1", BROWSER_OFFER.replace("a=mid:0", "a=mid:0\r\na=sendonly"), rtp());
        assertTrue(again.contains("m=text 31004 RTP/AVP 100 98"), "a re-offer keeps m=text (RFC 3264 §8: m-lines stay): " + again);
        String answer = legs.fromImsAnswer("c1", IMS_ANSWER.replace("m=audio 6000 RTP/AVP 111", "m=audio 6000 RTP/AVP 111\r\na=recvonly"), rtp());
        assertFalse(answer.contains("m=text"), answer);
        assertNull(endpoint.take(200), "the re-answer's m=text is not given to the endpoint again");
    }

    @Test
    void moAChatChannelBesideTextKeepsMApplicationTowardIms() throws Exception {
        String offer = BROWSER_OFFER.replace("a=dcmap:1001", "a=dcmap:1000 label=\"chat\"\r\na=dcmap:1001");
        String imsOffer = withEndpoint(() -> legs.fromBrowserOffer("c1", offer, rtp()),
                "offer", Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS),
                "text-offer", Map.of("result", "ok", "sdp", EP_TEXT));
        assertTrue(imsOffer.indexOf("m=audio") < imsOffer.indexOf("m=application 31002")
                && imsOffer.indexOf("m=application 31002") < imsOffer.indexOf("m=text 31004"), "audio, data channel, text: " + imsOffer);
        String browserAnswer = withEndpoint(() -> legs.fromImsAnswer("c1",
                IMS_ANSWER.replace("m=text", "m=application 7000 UDP/DTLS/SCTP webrtc-datachannel\r\na=setup:active\r\nm=text"), rtp()),
                "text-answer", Map.of("result", "ok", "redundancy", 2L),
                "answer", Map.of("result", "ok", "channels", List.of(1000L)));
        assertTrue(browserAnswer.contains("m=application 31001"), browserAnswer);
        assertFalse(browserAnswer.contains("m=text"), browserAnswer);
    }

    @Test
    void anImsAnswerRejectingTextIsNotGivenToTheEndpoint() throws Exception {
        moOffer();
        String browserAnswer = withEndpoint(() -> legs.fromImsAnswer("c1", IMS_ANSWER.replace("m=text 6002", "m=text 0"), rtp()));
        assertFalse(browserAnswer.contains("m=text"), browserAnswer);
        String again = legs.fromBrowserOffer("c1", BROWSER_OFFER, rtp());
        assertTrue(again.contains("m=text 0 RTP/AVP 100 98\r\n"), "a re-offer keeps the m-line, rejected: " + again);
    }

    @Test
    void anEndpointRefusingTextLeavesTheCallWithoutMText() throws Exception {
        String imsOffer = withEndpoint(() -> legs.fromBrowserOffer("c1", BROWSER_OFFER, rtp()),
                "offer", Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS),
                "text-offer", Map.of("result", "error", "error-reason", "no free port"));
        assertFalse(imsOffer.contains("m=text"), "no text offered when the endpoint refused it: " + imsOffer);
        assertTrue(imsOffer.contains("m=application 31002"), "the data channel goes on toward IMS: " + imsOffer);
    }

    private static final String IMS_TEXT_OFFER = "v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 8\r\n"
            + "m=text 6002 RTP/AVP 100 98\r\na=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n"
            + "m=video 0 RTP/AVP 96\r\n";
    private static final String EP_T140_OFFER = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\n"
            + "c=IN IP4 198.18.0.1\r\na=setup:actpass\r\na=dcmap:1001 label=\"t140\";subprotocol=\"t140\"\r\n";
    private static final String EP_TEXT_ANSWER = "v=0\r\ns=-\r\nt=0 0\r\nm=text 31004 RTP/AVP 100 98\r\nc=IN IP4 127.0.0.1\r\n"
            + "a=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n";

    @Test
    void mtAnImsOfferWithTextGivesTheBrowserAT140ChannelAndImsTheBridgesMText() throws Exception {
        String browserOffer = withEndpoint(() -> legs.fromImsOffer("c1", IMS_TEXT_OFFER, rtp()),
                "text-offer", Map.of("result", "ok", "sdp", EP_T140_OFFER, "ims-sdp", EP_TEXT_ANSWER));
        assertFalse(toRtp.get(0).contains("m=text"), "rtpengine got the IMS offer's m=text: " + toRtp.get(0));
        assertTrue(browserOffer.contains("m=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\n"), "the T.140 channel's section, with a mid: " + browserOffer);
        assertTrue(browserOffer.contains("a=dcmap:1001 label=\"t140\";subprotocol=\"t140\""), browserOffer);
        assertTrue(browserOffer.indexOf("m=audio") < browserOffer.indexOf("m=application") && browserOffer.indexOf("m=application") < browserOffer.indexOf("m=video"),
                "the data channel takes m=text's place among the m-lines: " + browserOffer);
        assertTrue(browserOffer.contains("a=ice-lite\r\nm=audio"), browserOffer);
        String imsAnswer = withEndpoint(() -> legs.fromBrowserAnswer("c1",
                "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 8\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\na=setup:active\r\nm=video 0 UDP/TLS/RTP/SAVPF 96\r\n", rtp()),
                "answer", Map.of("result", "ok", "channels", List.of()));
        assertFalse(toRtp.get(1).contains("m=application"), "rtpengine got the browser's data-channel section");
        assertFalse(imsAnswer.contains("m=application"), "the IMS side offered no m=application: " + imsAnswer);
        assertTrue(imsAnswer.indexOf("m=audio 30000") < imsAnswer.indexOf("m=text 31004 RTP/AVP 100 98")
                && imsAnswer.indexOf("m=text") < imsAnswer.indexOf("m=video"), "the answer keeps the offer's m-line order (RFC 3264 §6): " + imsAnswer);
        // a re-INVITE from IMS (hold): no endpoint command, m=text out toward the browser and back in the answer
        String again = legs.fromImsOffer("c1", IMS_TEXT_OFFER.replace("m=audio 6000 RTP/AVP 8", "m=audio 6000 RTP/AVP 8\r\na=sendonly"), rtp());
        assertFalse(toRtp.get(2).contains("m=text"), "rtpengine got the re-offer's m=text");
        assertTrue(again.contains("m=application 31001"), again);
        assertNull(endpoint.take(200), "a re-offer must not reach the endpoint");
    }

    @Test
    void mtAnEndpointRefusingTextRejectsMTextTowardIms() throws Exception {
        String browserOffer = withEndpoint(() -> legs.fromImsOffer("c1", IMS_TEXT_OFFER, rtp()),
                "text-offer", Map.of("result", "error", "error-reason", "no free port"));
        assertFalse(browserOffer.contains("m=application") || browserOffer.contains("m=text"), "nothing of text toward the browser: " + browserOffer);
        String imsAnswer = legs.fromBrowserAnswer("c1", "v=0\r\ns=-\r\nm=audio 9 UDP/TLS/RTP/SAVPF 8\r\nm=video 0 UDP/TLS/RTP/SAVPF 96\r\n", rtp());
        assertTrue(imsAnswer.contains("m=text 0 RTP/AVP 100 98\r\nm=video"), "m=text rejected at its place: " + imsAnswer);
    }

    @Test
    void theCallInfoCarriesTheBridgesCounters() {
        DataChannelStats s = DataChannelStats.of(Map.of("legs", Map.of("browser", Map.of("state", "up")),
                "text", Map.of("state", "answered", "redundancy", 2L, "channel", 1001L,
                        "browser-to-ims", Map.of("chars", 12L, "rtp-packets", 7L),
                        "ims-to-browser", Map.of("recovered", 1L, "lost", 0L, "rtp-packets", 9L))));
        Map<String, Object> m = s.toMap();
        assertTrue(m.get("text") instanceof Map<?, ?>, "dataChannels.text: " + m);
        Map<?, ?> t = (Map<?, ?>) m.get("text");
        assertEquals(2L, t.get("redundancy"));
        assertEquals(12L, s.text().count("toIms", "chars"));
        assertEquals(7L, s.text().count("toIms", "rtpPackets"), "kebab-case keys in camelCase: " + t);
        assertEquals(1L, s.text().count("toBrowser", "recovered"));
        assertNull(DataChannelStats.of(Map.of()).toMap().get("text"), "no text bridge, no text object");
    }
}
