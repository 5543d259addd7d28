package org.webrtcims.gw.media;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.sdp.DataChannelSdp;

import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.*;
import static org.webrtcims.gw.sdp.TextSdpFixtures.*;

/**
 * Real-time text's commands through one call's door to the data-channel endpoint ({@link DataChannelLegs#forCall},
 * {@link RealTimeText}; the endpoint a UDP stand-in answering its control commands): `text-offer` with the browser's
 * T.140 stream id, `text-offer from: ims` with the IMS offer (an MT call's session starts there), `text-answer`;
 * refusals leave the call without text; the call info's `dataChannels.text`. The SDP work is sdp/TextSdpTest's.
 */
class DataChannelLegsTextTest {
    private static final String IMS_TEXT_OFFER = "v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 8\r\n"
            + "m=text 6002 RTP/AVP 100 98\r\na=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n";

    private final EndpointStandIn standIn = new EndpointStandIn();
    private final FakeNgPeer endpoint = standIn.endpoint;
    private final DataChannelLegs legs = standIn.legs;
    private final DataChannelSdp.Endpoint c1 = standIn.c1;

    DataChannelLegsTextTest() throws Exception {
    }

    @AfterEach
    void tearDown() { standIn.close(); }

    /** Runs a step that sends the endpoint one command, checked and answered with reply (EndpointStandIn), and no other. */
    private <T> T onlyCommand(Supplier<T> step, String command, Map<String, Object> reply, Map<String, Object> expect) throws Exception {
        T out = standIn.withEndpoint(step, command, reply, expect);
        assertNull(endpoint.take(100), "no further command to the endpoint");
        return out;
    }

    @Test
    void moTheBrowsersT140ChannelGoesToTextOfferAndTheImsAnswerToTextAnswer() throws Exception {
        onlyCommand(() -> c1.offerFromBrowser("v=0\r\n"), "offer", Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS), Map.of());
        String sdp = onlyCommand(() -> c1.textOffer(1001), "text-offer", Map.of("result", "ok", "sdp", EP_TEXT), Map.of("channel", 1001L));
        assertEquals(EP_TEXT, sdp, "the endpoint's text SDP goes to the call's SDP step");
        assertTrue(onlyCommand(() -> c1.textAnswer(IMS_ANSWER), "text-answer",
                Map.of("result", "ok", "redundancy", 2L, "t140-pt", 98L, "red-pt", 100L), Map.of("sdp", IMS_ANSWER)), "the text answer taken");
        assertTrue(legs.has("c1"), "the call's session stands");
    }

    @Test
    void refusalsLeaveTheCallWithoutText() throws Exception {
        assertNull(onlyCommand(() -> c1.textOffer(1001), "text-offer", Map.of("result", "error", "error-reason", "no free port"), Map.of()),
                "a refused text-offer gives the SDP step no m=text");
        assertFalse(onlyCommand(() -> c1.textAnswer(IMS_ANSWER), "text-answer", Map.of("result", "error", "error-reason", "bad m=text"), Map.of()),
                "a refused text-answer ends the call's text");
        DataChannelSdp.Endpoint off = DataChannelLegs.off().forCall("c2");
        assertNull(off.textOffer(1001), "no endpoint configured: no text");
        assertNull(off.textOfferFromIms(IMS_TEXT_OFFER), "no endpoint configured: an IMS offer's text is refused");
        assertFalse(off.textAnswer(IMS_ANSWER), "no endpoint configured: no text answer taken");
    }

    @Test
    void mtAnImsOfferWithTextStartsTheCallsSessionWithTextOfferFromIms() throws Exception {
        DataChannelSdp.Sdps r = onlyCommand(() -> c1.textOfferFromIms(IMS_TEXT_OFFER), "text-offer",
                Map.of("result", "ok", "sdp", EP_T140_OFFER, "ims-sdp", EP_TEXT_ANSWER), Map.of("from", "ims", "sdp", IMS_TEXT_OFFER));
        assertEquals(new DataChannelSdp.Sdps(EP_T140_OFFER, EP_TEXT_ANSWER), r, "'sdp' (the T.140 channel) to the browser, 'ims-sdp' (m=text) to IMS");
        assertTrue(legs.has("c1"), "the MT text call has a session at the endpoint");
        DataChannelStats last = onlyCommand(() -> { legs.release("c1"); return legs.stats("c1"); }, "delete",
                Map.of("result", "ok", "text", Map.of("state", "answered", "channel", 1001L)), Map.of());
        assertEquals(1001L, last.toMap().get("text") instanceof Map<?, ?> t ? t.get("channel") : null,
                "the session's delete ends the bridge, its last counters stay for the call info: " + last.toMap());
    }

    @Test
    void mtARefusedTextOfferFromImsStartsNoSession() throws Exception {
        assertNull(onlyCommand(() -> c1.textOfferFromIms(IMS_TEXT_OFFER), "text-offer", Map.of("result", "error", "error-reason", "no free port"), Map.of()),
                "refused: the SDP step rejects m=text");
        assertFalse(legs.has("c1"), "no session for a refused text offer");
        legs.release("c1");
        assertNull(endpoint.take(100), "nothing to delete at the endpoint");
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
        assertEquals(2L, t.get("redundancy"), "the bridge's redundancy: " + t);
        assertEquals(12L, s.text().count("toIms", "chars"), "chars toward IMS: " + t);
        assertEquals(7L, s.text().count("toIms", "rtpPackets"), "kebab-case keys in camelCase: " + t);
        assertEquals(1L, s.text().count("toBrowser", "recovered"), "recovered from redundancy: " + t);
        assertNull(DataChannelStats.of(Map.of()).toMap().get("text"), "no text bridge, no text object");
    }

    @Test
    void mtTextBesideTheImsOffersChannelsJoinsItsSessionAndAFailedJoinKeepsIt() throws Exception {
        onlyCommand(() -> c1.offerFromIms(IMS_TEXT_OFFER), "offer", Map.of("result", "ok", "sdp", EP_BROWSER, "ims-sdp", EP_IMS), Map.of("from", "ims"));
        assertNull(onlyCommand(() -> c1.textOfferFromIms(IMS_TEXT_OFFER), "text-offer", Map.of("result", "error", "error-reason", "no free port"),
                Map.of("from", "ims")), "the text refused");
        assertTrue(legs.has("c1"), "a refused text beside the channels leaves the call's session standing");
        onlyCommand(() -> { legs.release("c1"); return null; }, "delete", Map.of("result", "ok"), Map.of());
    }
}
