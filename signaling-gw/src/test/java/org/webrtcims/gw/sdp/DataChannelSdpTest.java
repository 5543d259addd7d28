package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A call's data-channel section inside BrowserSdp's one step: the relay (a recording stand-in for rtpengine) gets
 * each SDP without it, the endpoint (a recording stand-in) gets the section's offer and answer, and the two are
 * joined again in order: MO, MT, re-offers, refusals and rejections.
 */
class DataChannelSdpTest {
    private static final String BROWSER_OFFER = "v=0\r\no=- 1 1 IN IP4 198.18.0.2\r\ns=-\r\nc=IN IP4 198.18.0.2\r\nt=0 0\r\n"
            + "a=group:BUNDLE 0 1\r\n"
            + "m=audio 50000 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=rtpmap:111 opus/48000/2\r\na=setup:actpass\r\n"
            + "a=fingerprint:sha-256 AA:BB\r\na=candidate:1 1 UDP 2130706431 198.18.0.2 50000 typ host\r\n"
            + "m=application 50000 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\na=sctp-port:5000\r\na=dcmap:1000 label=\"chat\"\r\n";
    private static final String BROWSER_ANSWER = "v=0\r\no=- 1 1 IN IP4 198.18.0.2\r\ns=-\r\nc=IN IP4 198.18.0.2\r\nt=0 0\r\n"
            + "m=audio 50000 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=rtpmap:111 opus/48000/2\r\na=setup:active\r\n"
            + "a=fingerprint:sha-256 AA:BB\r\na=candidate:1 1 UDP 2130706431 198.18.0.2 50000 typ host\r\n"
            + "m=application 50002 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\na=setup:active\r\n";
    private static final String EP_BROWSER = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 198.18.0.1\r\na=setup:passive\r\n";
    private static final String EP_IMS = "v=0\r\ns=-\r\na=ice-lite\r\nm=application 31002 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 127.0.0.1\r\na=setup:actpass\r\na=dcmap:1000 label=\"chat\"\r\n";
    private static final String IMS_ANSWER = "v=0\r\ns=-\r\nm=audio 6000 RTP/AVP 111\r\nm=application 7000 UDP/DTLS/SCTP webrtc-datachannel\r\na=setup:active\r\na=dcmap:1000 label=\"chat\"\r\n";
    private static final String IMS_OFFER = "v=0\r\ns=-\r\nm=audio 6000 RTP/AVP 111 8\r\nm=application 7000 UDP/DTLS/SCTP webrtc-datachannel\r\na=setup:actpass\r\na=dcmap:1000 label=\"chat\"\r\n";
    /** rtpengine's SDP toward IMS and toward the browser (its audio m-line alone). */
    private static final String RELAY_TO_IMS = "v=0\r\no=- 5 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\n";
    private static final String RELAY_TO_BROWSER = "v=0\r\no=- 6 1 IN IP4 198.18.0.1\r\ns=-\r\nt=0 0\r\nm=audio 30002 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\n";

    /** What the relay was given, in order. */
    private final List<String> relayed = new ArrayList<>();
    /** What the endpoint was asked, in order: "offer-browser", "offer-ims", "answer-ims", "answer-browser", "drop: why". */
    private final List<String> asked = new ArrayList<>();
    /** The endpoint's reply to an offer (null: it refuses). */
    private DataChannelSdp.Sdps endpointOffer = new DataChannelSdp.Sdps(EP_BROWSER, EP_IMS);
    private boolean endpointTakesAnswer = true;
    private final DataChannelSdp dc = new DataChannelSdp(new DataChannelSdp.Endpoint() {
        @Override
        public DataChannelSdp.Sdps offerFromBrowser(String browserSdp) {
            asked.add("offer-browser");
            assertTrue(browserSdp.contains("m=application"), "the endpoint gets the whole SDP with its section: " + browserSdp);
            return endpointOffer;
        }

        @Override
        public DataChannelSdp.Sdps offerFromIms(String imsSdp) {
            asked.add("offer-ims");
            return endpointOffer;
        }

        @Override
        public boolean answer(String sdp, boolean fromIms) {
            asked.add(fromIms ? "answer-ims" : "answer-browser");
            return endpointTakesAnswer;
        }

        @Override
        public void drop(String why) { asked.add("drop: " + why); }

        @Override
        public String textOffer(int channel) { throw new AssertionError("a section without a T.140 channel reached the endpoint's text bridge"); }

        @Override
        public DataChannelSdp.Sdps textOfferFromIms(String imsSdp) { throw new AssertionError("an IMS offer without m=text reached the endpoint's text bridge"); }

        @Override
        public boolean textAnswer(String imsSdp) { throw new AssertionError("an answer without m=text reached the endpoint's text bridge"); }

        @Override
        public void dropText(String why) { throw new AssertionError("a call without text dropped real-time text: " + why); }
    });

    private String toIms(String sdp) {
        relayed.add(sdp);
        return RELAY_TO_IMS;
    }

    private String toBrowser(String sdp) {
        relayed.add(sdp);
        return RELAY_TO_BROWSER;
    }

    private BrowserSdp.ToIms moOffer() { return BrowserSdp.offerToIms(BROWSER_OFFER, true, null, this::toIms, dc); }

    @Test
    void moTheSectionGoesToTheEndpointTheRestToTheRelayAndBothComeBackInOrder() {
        BrowserSdp.ToIms offer = moOffer();
        assertFalse(relayed.get(0).contains("m=application"), "the relay got the data-channel section: " + relayed.get(0));
        assertFalse(relayed.get(0).contains("BUNDLE 0 1"), "the section's mid left the BUNDLE group: " + relayed.get(0));
        String ims = offer.imsSdp();
        assertTrue(ims.indexOf("m=audio 30000") < ims.indexOf("m=application 31002"), "audio first, as offered: " + ims);
        assertTrue(ims.contains("a=ice-lite\r\nm=audio"), "the IMS offer says a=ice-lite at session level: " + ims);
        assertTrue(ims.contains("a=dcmap:1000 label=\"chat\""), ims);
        assertFalse(offer.mediaSdp().contains("m=application"), "the media SDP is the relay's alone: " + offer.mediaSdp());

        BrowserSdp.ToBrowser answer = BrowserSdp.answerToBrowser(IMS_ANSWER, offer.browserSdp(), this::toBrowser, dc);
        assertFalse(relayed.get(1).contains("m=application"), "the relay got the IMS answer's data-channel section: " + relayed.get(1));
        assertEquals(relayed.get(1), answer.imsSdp(), "what the relay got is kept for re-answers");
        String browser = answer.browserSdp();
        assertTrue(browser.contains("m=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\nc=IN IP4 198.18.0.1"), browser);
        assertTrue(browser.indexOf("m=audio") < browser.indexOf("m=application"), browser);
        assertFalse(browser.contains("a=group:BUNDLE"), "no BUNDLE group toward the browser with a data channel: " + browser);
        assertEquals(List.of("offer-browser", "answer-ims"), asked);
    }

    @Test
    void anMoOffersPreconditionLinesStayOnItsAudio() {
        String ims = BrowserSdp.offerToIms(BROWSER_OFFER, true, new QosPreconditions.Status("none", "none", "optional", false), this::toIms, dc).imsSdp();
        int dcAt = ims.indexOf("m=application");
        assertTrue(ims.indexOf("a=curr:qos local none") > 0 && ims.indexOf("a=curr:qos local none") < dcAt,
                "the status lines are the audio's, before the data-channel section: " + ims);
    }

    @Test
    void aReofferKeepsTheSectionsWithoutAskingTheEndpointAgain() {
        BrowserSdp.ToIms first = moOffer();
        BrowserSdp.answerToBrowser(IMS_ANSWER, first.browserSdp(), this::toBrowser, dc);
        String again = BrowserSdp.offerToIms(BROWSER_OFFER.replace("a=mid:0", "a=mid:0\r\na=sendonly"), false, null, this::toIms, dc).imsSdp();
        assertTrue(again.contains("m=application 31002"), "the re-offer toward IMS keeps the endpoint's section: " + again);
        assertEquals(List.of("offer-browser", "answer-ims"), asked, "a re-offer must not reach the endpoint (one offer/answer per call)");
    }

    @Test
    void anEndpointRefusalLeavesTheCallWithoutDataChannels() {
        endpointOffer = null;
        BrowserSdp.ToIms offer = moOffer();
        assertFalse(offer.imsSdp().contains("m=application"), "a refused section is not offered to IMS: " + offer.imsSdp());
        assertFalse(offer.imsSdp().contains("a=ice-lite"), offer.imsSdp());
        String browser = BrowserSdp.answerToBrowser("v=0\r\ns=-\r\nm=audio 6000 RTP/AVP 111\r\n", offer.browserSdp(), this::toBrowser, dc).browserSdp();
        assertTrue(browser.endsWith("m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\n"),
                "the browser's answer rejects the section (port 0, its mid): " + browser);
        assertEquals(List.of("offer-browser"), asked, "no answer goes to an endpoint that refused the offer");
    }

    @Test
    void anImsAnswerThatRejectsTheSectionDropsTheSession() {
        BrowserSdp.ToIms offer = moOffer();
        String browser = BrowserSdp.answerToBrowser(IMS_ANSWER.replace("m=application 7000", "m=application 0"), offer.browserSdp(),
                this::toBrowser, dc).browserSdp();
        assertTrue(browser.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel"), browser);
        assertEquals(List.of("offer-browser", "drop: the IMS side rejected the data-channel section"), asked);
        String reoffer = BrowserSdp.offerToIms(BROWSER_OFFER, false, null, this::toIms, dc).imsSdp();
        assertTrue(reoffer.contains("m=application 0 "), "a re-offer keeps the section rejected: " + reoffer);
        assertFalse(reoffer.contains("a=ice-lite"), "no ICE-lite once the endpoint's session is gone: " + reoffer);
    }

    @Test
    void anEndpointSdpWithoutAnMLineIsDroppedAndTheSectionRejected() {
        endpointOffer = new DataChannelSdp.Sdps("v=0\r\ns=-\r\n", EP_IMS);
        BrowserSdp.ToIms offer = moOffer();
        assertFalse(offer.imsSdp().contains("m=application"), offer.imsSdp());
        assertEquals(2, asked.size(), "offer, then drop: " + asked);
        assertTrue(asked.get(1).startsWith("drop: the data-channel endpoint's SDP has no m= line"), asked.get(1));
    }

    @Test
    void mtTheImsOfferBecomesABrowserOfferWithAMidAndIceLite() {
        endpointOffer = new DataChannelSdp.Sdps(EP_BROWSER.replace("passive", "actpass"), EP_IMS.replace("actpass", "passive"));
        BrowserSdp.ToBrowser offer = BrowserSdp.offerToBrowser(IMS_OFFER, this::toBrowser, dc);
        assertFalse(relayed.get(0).contains("m=application"), relayed.get(0));
        assertFalse(offer.imsSdp().contains("m=application"), "the IMS SDP kept for re-answers is the relay's: " + offer.imsSdp());
        String browser = offer.browserSdp();
        assertTrue(browser.contains("a=ice-lite\r\nm=audio"), browser);
        assertFalse(browser.contains("a=group:BUNDLE"), "no BUNDLE group toward the browser with a data channel: " + browser);
        assertTrue(browser.contains("m=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\n"), "the browser needs a mid: " + browser);
        String ims = BrowserSdp.answerToIms(BROWSER_ANSWER, this::toIms, dc).imsSdp();
        assertFalse(relayed.get(1).contains("m=application"), relayed.get(1));
        assertTrue(ims.indexOf("m=audio") < ims.indexOf("m=application 31002"), ims);
        assertTrue(ims.contains("a=setup:passive"), ims);
        assertEquals(List.of("offer-ims", "answer-browser"), asked);
    }

    @Test
    void anEndpointThatRefusesTheAnswerLeavesBothSectionsRejected() {
        endpointTakesAnswer = false;
        BrowserSdp.ToIms offer = moOffer();
        String browser = BrowserSdp.answerToBrowser(IMS_ANSWER, offer.browserSdp(), this::toBrowser, dc).browserSdp();
        assertTrue(browser.contains("m=application 0 "), "the browser hears the section rejected: " + browser);
    }

    @Test
    void anSdpWithoutADataChannelSectionIsTheRelaysAlone() {
        String audio = BROWSER_OFFER.substring(0, BROWSER_OFFER.indexOf("m=application")).replace("a=group:BUNDLE 0 1", "a=group:BUNDLE 0");
        BrowserSdp.ToIms offer = BrowserSdp.offerToIms(audio, true, null, this::toIms, dc);
        assertEquals(offer.mediaSdp(), offer.imsSdp(), "an audio-only SDP is the relay's as it is");
        assertEquals(List.of(), asked, "an audio-only call must not reach the endpoint");
        BrowserSdp.answerToBrowser(IMS_ANSWER, offer.browserSdp(), this::toBrowser, dc);
        assertEquals(List.of(), asked, "an answer with a section nobody offered does not reach it either");
        assertFalse(relayed.get(1).contains("m=application"), "the relay never gets a data-channel section: " + relayed.get(1));
    }

    // ---- mid-call (issue #25): a section added by a re-offer, and removed by one (RFC 8841 §10, RFC 3264 §8.2) ----

    private static final String AUDIO_ONLY_OFFER = BROWSER_OFFER.substring(0, BROWSER_OFFER.indexOf("m=application"))
            .replace("a=group:BUNDLE 0 1", "a=group:BUNDLE 0");
    private static final String AUDIO_ONLY_IMS = "v=0\r\ns=-\r\nm=audio 6000 RTP/AVP 111 8\r\n";

    @Test
    void moABrowserReofferAddingTheSectionStartsTheEndpointsSessionMidCall() {
        BrowserSdp.ToIms first = BrowserSdp.offerToIms(AUDIO_ONLY_OFFER, true, null, this::toIms, dc);
        BrowserSdp.answerToBrowser(AUDIO_ONLY_IMS, first.browserSdp(), this::toBrowser, dc);
        assertEquals(List.of(), asked, "an audio call does not reach the endpoint");
        BrowserSdp.ToIms add = BrowserSdp.offerToIms(BROWSER_OFFER, false, null, this::toIms, dc);
        assertTrue(add.imsSdp().indexOf("m=audio 30000") < add.imsSdp().indexOf("m=application 31002"),
                "the re-INVITE offers IMS the endpoint's section after the audio: " + add.imsSdp());
        assertTrue(add.imsSdp().contains("a=dcmap:1000 label=\"chat\""), add.imsSdp());
        String browser = BrowserSdp.answerToBrowser(IMS_ANSWER, add.browserSdp(), this::toBrowser, dc).browserSdp();
        assertTrue(browser.contains("m=application 31001 "), "the browser's re-answer has the endpoint's section: " + browser);
        assertTrue(browser.contains("a=group:BUNDLE 0\r\n"), "the audio's BUNDLE group, established by the first answer, stays: " + browser);
        assertEquals(List.of("offer-browser", "answer-ims"), asked);
    }

    @Test
    void mtAnImsReofferAddingTheSectionGivesTheBrowserOneMidCall() {
        BrowserSdp.offerToBrowser(AUDIO_ONLY_IMS, this::toBrowser, dc);
        BrowserSdp.answerToIms(BROWSER_ANSWER.substring(0, BROWSER_ANSWER.indexOf("m=application")), this::toIms, dc);
        endpointOffer = new DataChannelSdp.Sdps(EP_BROWSER.replace("passive", "actpass"), EP_IMS.replace("actpass", "passive"));
        String browser = BrowserSdp.offerToBrowser(IMS_OFFER, this::toBrowser, dc).browserSdp();
        assertTrue(browser.contains("m=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\n"), "the re-offer to the browser adds the section: " + browser);
        assertTrue(browser.contains("a=group:BUNDLE 0\r\n"), "the audio's established BUNDLE group stays, the section beside it: " + browser);
        String ims = BrowserSdp.answerToIms(BROWSER_ANSWER, this::toIms, dc).imsSdp();
        assertTrue(ims.indexOf("m=audio") < ims.indexOf("m=application 31002"), ims);
        assertEquals(List.of("offer-ims", "answer-browser"), asked);
    }

    @Test
    void moABrowserReofferWithTheSectionAtPort0RemovesItAndDeletesTheSession() {
        BrowserSdp.ToIms offer = moOffer();
        BrowserSdp.answerToBrowser(IMS_ANSWER, offer.browserSdp(), this::toBrowser, dc);
        String removal = BROWSER_OFFER.replace("m=application 50000", "m=application 0");
        String ims = BrowserSdp.offerToIms(removal, false, null, this::toIms, dc).imsSdp();
        assertTrue(ims.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel"), "the re-INVITE removes the section (port 0): " + ims);
        assertFalse(ims.contains("a=dcmap"), "a removed section carries no channels: " + ims);
        assertFalse(ims.contains("a=ice-lite"), "no endpoint, no ICE-lite: " + ims);
        String browser = BrowserSdp.answerToBrowser(IMS_ANSWER.replace("m=application 7000", "m=application 0"), offer.browserSdp(), this::toBrowser, dc).browserSdp();
        assertTrue(browser.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\n"), "the browser's answer keeps its mid at port 0: " + browser);
        assertEquals(List.of("offer-browser", "answer-ims", "drop: the browser removed the data-channel section (port 0)"), asked);
        String again = BrowserSdp.offerToIms(BROWSER_OFFER, false, null, this::toIms, dc).imsSdp();
        assertTrue(again.contains("m=application 0 "), "a section added again after the removal stays at port 0: " + again);
        assertEquals(3, asked.size(), "the endpoint is not asked again: " + asked);
    }

    @Test
    void mtAnImsReofferWithTheSectionAtPort0RemovesItTowardTheBrowser() {
        endpointOffer = new DataChannelSdp.Sdps(EP_BROWSER.replace("passive", "actpass"), EP_IMS.replace("actpass", "passive"));
        BrowserSdp.offerToBrowser(IMS_OFFER, this::toBrowser, dc);
        BrowserSdp.answerToIms(BROWSER_ANSWER, this::toIms, dc);
        String browser = BrowserSdp.offerToBrowser(IMS_OFFER.replace("m=application 7000", "m=application 0"), this::toBrowser, dc).browserSdp();
        assertTrue(browser.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\n"), "the browser's re-offer removes the section, same mid: " + browser);
        assertFalse(browser.contains("a=ice-lite\r\nm=audio"), "no endpoint, no session-level ICE-lite from it: " + browser);
        String ims = BrowserSdp.answerToIms(BROWSER_ANSWER.replace("m=application 50002", "m=application 0"), this::toIms, dc).imsSdp();
        assertTrue(ims.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel"), "the answer to IMS keeps port 0: " + ims);
        assertEquals(List.of("offer-ims", "answer-browser", "drop: the IMS side removed the data-channel section (port 0)"), asked);
    }
}
