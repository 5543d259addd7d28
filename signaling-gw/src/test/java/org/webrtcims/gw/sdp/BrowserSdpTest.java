package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A browser SDP's one step toward IMS: the checks before the relay, the DTLS role, and what the relay's SDP loses. */
class BrowserSdpTest {
    private static final String OFFER = "v=0\r\no=- 1 1 IN IP4 198.18.0.2\r\ns=-\r\nc=IN IP4 198.18.0.2\r\nt=0 0\r\n"
            + "m=audio 50000 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=rtpmap:111 opus/48000/2\r\n"
            + "a=fingerprint:sha-256 AA:BB\r\na=candidate:1 1 UDP 2130706431 198.18.0.2 50000 typ host\r\n";
    private static final String RELAYED = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\na=mid:0\r\na=rtcp-fb:111 transport-cc\r\n";

    private final List<String> relayed = new ArrayList<>();
    /** The data-channel step of SDPs without a data-channel section: its endpoint must never be asked. */
    private final DataChannelSdp audioOnly = new DataChannelSdp(new DataChannelSdp.Endpoint() {
        @Override
        public DataChannelSdp.Sdps offerFromBrowser(String browserSdp) { throw new AssertionError("an audio-only browser offer reached the data-channel endpoint"); }

        @Override
        public DataChannelSdp.Sdps offerFromIms(String imsSdp) { throw new AssertionError("an audio-only IMS offer reached the data-channel endpoint"); }

        @Override
        public boolean answer(String sdp, boolean fromIms) { throw new AssertionError("an audio-only answer reached the data-channel endpoint"); }

        @Override
        public void drop(String why) { throw new AssertionError("an audio-only call dropped data channels: " + why); }

        @Override
        public String textOffer(int channel) { throw new AssertionError("an audio-only offer reached the endpoint's text bridge"); }

        @Override
        public DataChannelSdp.Sdps textOfferFromIms(String imsSdp) { throw new AssertionError("an IMS offer without m=text reached the endpoint's text bridge"); }

        @Override
        public boolean textAnswer(String imsSdp) { throw new AssertionError("an answer without m=text reached the endpoint's text bridge"); }

        @Override
        public void dropText(String why) { throw new AssertionError("an audio-only call dropped real-time text: " + why); }
    });

    private String relay(String sdp) {
        relayed.add(sdp);
        return RELAYED;
    }

    @Test
    void anOfferGetsItsDefaultSetupWrittenOutTheRelaysRoleAndTheRelaysSdpWithoutBrowserOnlyLines() {
        BrowserSdp.ToIms out = BrowserSdp.offerToIms(OFFER, true, null, this::relay, audioOnly);
        assertEquals(1, relayed.size(), "the relay is asked once");
        assertTrue(relayed.get(0).contains("a=setup:active\r\n"), "RFC 4145: an offer without a=setup is active: " + relayed.get(0));
        assertEquals(relayed.get(0), out.browserSdp(), "the browser's SDP as the relay got it is kept for the answer");
        assertEquals("passive", out.dtlsRole(), "the relay answers an active browser as passive");
        assertEquals("opus/48000", out.firstAudioCodec());
        assertFalse(out.imsSdp().contains("a=mid:") || out.imsSdp().contains("a=rtcp-fb"),
                "WebRTC-only lines leave the IMS SDP: " + out.imsSdp());
        assertTrue(out.imsSdp().contains("m=audio 30000 RTP/AVP 111"), out.imsSdp());
    }

    @Test
    void anAnswerIsPassiveByDefaultAndTheRelayTakesTheOppositeRole() {
        BrowserSdp.ToIms out = BrowserSdp.answerToIms(OFFER, this::relay, audioOnly);
        assertTrue(relayed.get(0).contains("a=setup:passive\r\n"), "RFC 4145: an answer without a=setup is passive");
        assertEquals("active", out.dtlsRole());
    }

    @Test
    void anUnreadableOrUnreachableSdpIsRefusedBeforeTheRelayIsAsked() {
        BrowserSdp.Refused garbage = assertThrows(BrowserSdp.Refused.class, () -> BrowserSdp.offerToIms("hello", true, null, this::relay, audioOnly));
        assertEquals(BrowserSdp.Refused.Kind.UNREADABLE, garbage.kind(), garbage.getMessage());
        String silent = OFFER.replace("c=IN IP4 198.18.0.2", "c=IN IP4 0.0.0.0").replaceAll("a=candidate:[^\r]*\r\n", "");
        BrowserSdp.Refused unreachable = assertThrows(BrowserSdp.Refused.class, () -> BrowserSdp.answerToIms(silent, this::relay, audioOnly));
        assertEquals(BrowserSdp.Refused.Kind.NO_USABLE_ADDRESS, unreachable.kind(), unreachable.getMessage());
        assertTrue(unreachable.getMessage().startsWith("browser SDP refused: m=audio"), unreachable.getMessage());
        assertEquals(List.of(), relayed, "the relay was never asked");
    }

    @Test
    void aTransportSharedByBundleIsRefusedOnlyInACallsFirstOffer() {
        String shared = OFFER.replace("t=0 0\r\n", "t=0 0\r\na=group:BUNDLE 0 1\r\n")
                + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\na=rtpmap:96 VP8/90000\r\na=bundle-only\r\n";
        BrowserSdp.Refused r = assertThrows(BrowserSdp.Refused.class, () -> BrowserSdp.offerToIms(shared, true, null, this::relay, audioOnly));
        assertEquals(BrowserSdp.Refused.Kind.UNREADABLE, r.kind(), r.getMessage());
        assertEquals(List.of(), relayed, "a refused first offer reaches no relay");
        BrowserSdp.offerToIms(shared, false, null, this::relay, audioOnly);
        assertEquals(1, relayed.size(), "a re-offer is not held to it (as before)");
    }

    @Test
    void anMoOfferWithPreconditionsCarriesTheirStatusLinesAndKeepsTheMediaSdpWithout() {
        BrowserSdp.ToIms out = BrowserSdp.offerToIms(OFFER, true, new QosPreconditions.Status("none", "none", "optional", false), this::relay, audioOnly);
        assertTrue(out.imsSdp().contains("a=curr:qos local none\r\n") && out.imsSdp().contains("a=des:qos optional remote sendrecv\r\n"),
                "TS 24.229 originating UE's status lines: " + out.imsSdp());
        assertFalse(out.mediaSdp().contains("a=curr:qos"), "the media SDP (what re-offers compare with) has none: " + out.mediaSdp());
        assertEquals(out.mediaSdp(), BrowserSdp.offerToIms(OFFER, true, null, this::relay, audioOnly).imsSdp(), "without preconditions: the media SDP");
    }
    @Test
    void towardTheBrowserAnAnswerKeepsTheOffersSingleGroupAndAnOfferGetsOne() {
        String offer = OFFER.replace("t=0 0\r\n", "t=0 0\r\na=group:BUNDLE 0\r\n");
        String toBrowser = "v=0\r\no=- 2 1 IN IP4 198.18.0.1\r\ns=-\r\nt=0 0\r\nm=audio 30002 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\n";
        BrowserSdp.ToBrowser answer = BrowserSdp.answerToBrowser(RELAYED, offer, sdp -> { relayed.add(sdp); return toBrowser; }, audioOnly);
        assertEquals(List.of(RELAYED), relayed, "the relay gets the IMS answer as it came");
        assertTrue(answer.browserSdp().contains("a=group:BUNDLE 0\r\n"), "the offer's one-m-line group is kept: " + answer.browserSdp());
        assertEquals(RELAYED, answer.imsSdp(), "the IMS SDP as the relay got it is kept for re-answers");
        BrowserSdp.ToBrowser reoffer = BrowserSdp.offerToBrowser(RELAYED, sdp -> toBrowser, audioOnly);
        assertTrue(reoffer.browserSdp().contains("a=group:BUNDLE 0\r\n"), "an offer to the browser gets a one-m-line group: " + reoffer.browserSdp());
    }
}
