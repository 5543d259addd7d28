package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;
import static org.webrtcims.gw.sdp.TextSdpFixtures.*;

/**
 * Real-time text inside BrowserSdp's one step (RFC 8865 ↔ RFC 4103, sdp/TextSdp through the call's DataChannelSdp):
 * the browser's T.140 channel becomes `m=text` toward IMS through the endpoint's text offer, the IMS answer's `m=text`
 * goes to the endpoint's text answer and never to the relay or the browser; MT, an IMS offer with `m=text` gets the
 * browser a T.140 channel at its place. The relay and the endpoint are recording stand-ins.
 */
class TextSdpTest {
    private static final String BROWSER_OFFER = String.join("\r\n",
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "c=IN IP4 198.18.0.2", "t=0 0", "a=group:BUNDLE 0 1",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0", "a=rtpmap:111 opus/48000/2",
            "a=candidate:1 1 UDP 2130706431 198.18.0.2 50000 typ host",
            "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "a=mid:1", "a=sctp-port:5000",
            "a=dcmap:1001 label=\"rtt\";subprotocol=\"t140\"", "");
    private static final String IMS_TEXT_OFFER = "v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 8\r\n"
            + "m=text 6002 RTP/AVP 100 98\r\na=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n"
            + "m=video 0 RTP/AVP 96\r\n";
    private static final String BROWSER_MT_ANSWER = "v=0\r\ns=-\r\nc=IN IP4 198.18.0.2\r\nt=0 0\r\n"
            + "m=audio 50000 UDP/TLS/RTP/SAVPF 8\r\na=mid:0\r\na=setup:active\r\na=candidate:1 1 UDP 2130706431 198.18.0.2 50000 typ host\r\n"
            + "m=application 50000 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\na=setup:active\r\nm=video 0 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\n";

    /** What the relay was given, in order. */
    private final List<String> relayed = new ArrayList<>();
    /** What the endpoint was asked, in order ("offer-browser", "text-offer 1001", "text-answer", "answer-ims", …). */
    private final List<String> asked = new ArrayList<>();
    private String textOffer = EP_TEXT;
    private DataChannelSdp.Sdps textFromIms = new DataChannelSdp.Sdps(EP_T140_OFFER, EP_TEXT_ANSWER);
    private boolean takesTextAnswer = true;
    private final DataChannelSdp dc = new DataChannelSdp(new DataChannelSdp.Endpoint() {
        @Override
        public DataChannelSdp.Sdps offerFromBrowser(String browserSdp) {
            asked.add("offer-browser");
            return new DataChannelSdp.Sdps(EP_BROWSER, EP_IMS);
        }

        @Override
        public DataChannelSdp.Sdps offerFromIms(String imsSdp) {
            asked.add("offer-ims");
            assertTrue(imsSdp.contains("m=application 7000"), "an IMS offer without a data-channel section reached 'offer from: ims': " + imsSdp);
            return new DataChannelSdp.Sdps(EP_BROWSER.replace("passive", "actpass") + "a=dcmap:1000 label=\"chat\"\r\n", EP_IMS.replace("actpass", "passive"));
        }

        @Override
        public boolean answer(String sdp, boolean fromIms) {
            asked.add(fromIms ? "answer-ims" : "answer-browser");
            assertFalse(sdp.contains("m=text"), "the data-channel answer goes without m=text: " + sdp);
            return true;
        }

        @Override
        public void drop(String why) { asked.add("drop: " + why); }

        @Override
        public String textOffer(int channel) {
            asked.add("text-offer " + channel);
            return textOffer;
        }

        @Override
        public DataChannelSdp.Sdps textOfferFromIms(String imsSdp) {
            asked.add("text-offer-ims");
            assertTrue(imsSdp.contains("m=text 6002"), "the endpoint gets the IMS offer with its m=text: " + imsSdp);
            return textFromIms;
        }

        @Override
        public boolean textAnswer(String imsSdp) {
            asked.add("text-answer");
            assertTrue(imsSdp.contains("m=text 6002"), "the endpoint gets the IMS answer with its m=text: " + imsSdp);
            return takesTextAnswer;
        }

        @Override
        public void dropText(String why) { asked.add("drop-text: " + why); }
    });

    private String toIms(String sdp) {
        relayed.add(sdp);
        return "v=0\r\no=- 5 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 30000 RTP/AVP 111\r\n"
                + (sdp.contains("m=video") ? "m=video 0 RTP/AVP 96\r\n" : "");
    }

    private String toBrowser(String sdp) {
        relayed.add(sdp);
        return "v=0\r\no=- 6 1 IN IP4 198.18.0.1\r\ns=-\r\nt=0 0\r\nm=audio 30002 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\n"
                + (sdp.contains("m=video") ? "m=video 0 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\n" : "");
    }

    private BrowserSdp.ToIms moOffer(String browserSdp) { return BrowserSdp.offerToIms(browserSdp, true, null, this::toIms, dc); }

    @Test
    void moATextOnlyChannelBecomesMTextTowardImsWithoutMApplication() {
        BrowserSdp.ToIms offer = moOffer(BROWSER_OFFER);
        String imsOffer = offer.imsSdp();
        assertEquals(List.of("offer-browser", "text-offer 1001"), asked, "the endpoint takes the section, then the T.140 channel's stream id");
        assertFalse(imsOffer.contains("m=application"), "a T.140 channel alone needs no m=application toward IMS: " + imsOffer);
        assertTrue(imsOffer.indexOf("m=audio 30000") < imsOffer.indexOf("m=text 31004 RTP/AVP 100 98"), "audio, then m=text last: " + imsOffer);
        assertTrue(imsOffer.contains("a=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000"), "RFC 4103 with red: " + imsOffer);
        assertFalse(relayed.get(0).contains("m=application"), "the relay never gets the data-channel section: " + relayed.get(0));

        String browserAnswer = BrowserSdp.answerToBrowser(IMS_ANSWER, offer.browserSdp(), this::toBrowser, dc).browserSdp();
        assertEquals(List.of("offer-browser", "text-offer 1001", "text-answer"), asked,
                "the IMS answer's m=text goes to the text bridge; no m=application was offered, none is answered");
        assertFalse(relayed.get(1).contains("m=text"), "the relay got the IMS answer's m=text: " + relayed.get(1));
        assertFalse(browserAnswer.contains("m=text"), "the browser offered no m=text, its answer has none: " + browserAnswer);
        assertTrue(browserAnswer.indexOf("m=audio") >= 0 && browserAnswer.indexOf("m=audio") < browserAnswer.indexOf("m=application 31001"),
                "the browser's m-line order, its data channel answered by the endpoint: " + browserAnswer);
    }

    @Test
    void moAReofferKeepsMTextAndItsAnswerDoesNotReachTheEndpointAgain() {
        moATextOnlyChannelBecomesMTextTowardImsWithoutMApplication();
        asked.clear();
        BrowserSdp.ToIms again = BrowserSdp.offerToIms(BROWSER_OFFER.replace("a=mid:0", "a=mid:0\r\na=sendonly"), false, null, this::toIms, dc);
        assertTrue(again.imsSdp().contains("m=text 31004 RTP/AVP 100 98"), "a re-offer keeps m=text (RFC 3264 §8: m-lines stay): " + again.imsSdp());
        String answer = BrowserSdp.answerToBrowser(IMS_ANSWER.replace("m=audio 6000 RTP/AVP 111", "m=audio 6000 RTP/AVP 111\r\na=recvonly"),
                again.browserSdp(), this::toBrowser, dc).browserSdp();
        assertFalse(answer.contains("m=text"), "the re-answer toward the browser has no m=text: " + answer);
        assertFalse(relayed.get(relayed.size() - 1).contains("m=text"), "the relay got the re-answer's m=text");
        assertEquals(List.of(), asked, "a re-offer and its answer do not reach the endpoint again");
    }

    @Test
    void moAChatChannelBesideTextKeepsMApplicationTowardIms() {
        BrowserSdp.ToIms offer = moOffer(BROWSER_OFFER.replace("a=dcmap:1001", "a=dcmap:1000 label=\"chat\"\r\na=dcmap:1001"));
        String imsOffer = offer.imsSdp();
        assertTrue(imsOffer.indexOf("m=audio") < imsOffer.indexOf("m=application 31002")
                && imsOffer.indexOf("m=application 31002") < imsOffer.indexOf("m=text 31004"), "audio, data channel, text: " + imsOffer);
        assertTrue(imsOffer.contains("a=ice-lite"), "toward IMS the endpoint is ICE-lite: " + imsOffer);
        String browserAnswer = BrowserSdp.answerToBrowser(
                IMS_ANSWER.replace("m=text", "m=application 7000 UDP/DTLS/SCTP webrtc-datachannel\r\na=setup:active\r\nm=text"),
                offer.browserSdp(), this::toBrowser, dc).browserSdp();
        assertEquals(List.of("offer-browser", "text-offer 1001", "text-answer", "answer-ims"), asked, "text and data channel both answered");
        assertTrue(browserAnswer.contains("m=application 31001"), browserAnswer);
        assertFalse(browserAnswer.contains("m=text"), browserAnswer);
    }

    @Test
    void anImsAnswerRejectingTextIsNotGivenToTheEndpointAndReoffersKeepItRejected() {
        BrowserSdp.ToIms offer = moOffer(BROWSER_OFFER);
        String browserAnswer = BrowserSdp.answerToBrowser(IMS_ANSWER.replace("m=text 6002", "m=text 0"), offer.browserSdp(), this::toBrowser, dc).browserSdp();
        assertFalse(browserAnswer.contains("m=text"), browserAnswer);
        assertEquals(List.of("offer-browser", "text-offer 1001", "drop-text: the IMS side rejected m=text (port 0)"), asked, "the rejection is logged, not sent");
        String again = BrowserSdp.offerToIms(BROWSER_OFFER, false, null, this::toIms, dc).imsSdp();
        assertTrue(again.contains("m=text 0 RTP/AVP 100 98\r\n"), "a re-offer keeps the m-line, rejected: " + again);
    }

    @Test
    void anEndpointRefusingTextLeavesTheCallWithoutMTextAndWithItsDataChannel() {
        textOffer = null;
        String imsOffer = moOffer(BROWSER_OFFER).imsSdp();
        assertFalse(imsOffer.contains("m=text"), "no text offered when the endpoint refused it: " + imsOffer);
        assertTrue(imsOffer.contains("m=application 31002"), "the data channel goes on toward IMS: " + imsOffer);
    }

    @Test
    void anEndpointRefusingTheTextAnswerKeepsMTextRejectedInReoffers() {
        takesTextAnswer = false;
        BrowserSdp.ToIms offer = moOffer(BROWSER_OFFER);
        BrowserSdp.answerToBrowser(IMS_ANSWER, offer.browserSdp(), this::toBrowser, dc);
        String again = BrowserSdp.offerToIms(BROWSER_OFFER, false, null, this::toIms, dc).imsSdp();
        assertTrue(again.contains("m=text 0 RTP/AVP 100 98\r\n"), "a refused text answer leaves m=text at port 0: " + again);
    }

    @Test
    void mtAnImsOfferWithTextGivesTheBrowserAT140ChannelAndImsTheBridgesMText() {
        String browserOffer = BrowserSdp.offerToBrowser(IMS_TEXT_OFFER, this::toBrowser, dc).browserSdp();
        assertEquals(List.of("text-offer-ims"), asked, "the IMS offer's text goes to 'text-offer from: ims' only");
        assertFalse(relayed.get(0).contains("m=text"), "the relay got the IMS offer's m=text: " + relayed.get(0));
        assertTrue(browserOffer.contains("m=application 31001 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\n"), "the T.140 channel's section, with a free mid: " + browserOffer);
        assertTrue(browserOffer.contains("a=dcmap:1001 label=\"t140\";subprotocol=\"t140\""), browserOffer);
        assertTrue(browserOffer.indexOf("m=audio") < browserOffer.indexOf("m=application") && browserOffer.indexOf("m=application") < browserOffer.indexOf("m=video"),
                "the data channel takes m=text's place among the m-lines: " + browserOffer);
        assertTrue(browserOffer.contains("a=ice-lite"), "an MT data channel's offer says a=ice-lite: " + browserOffer);

        String imsAnswer = BrowserSdp.answerToIms(BROWSER_MT_ANSWER, this::toIms, dc).imsSdp();
        assertEquals(List.of("text-offer-ims", "answer-browser"), asked, "the browser's answer goes to the endpoint");
        assertFalse(relayed.get(1).contains("m=application"), "the relay got the browser's data-channel section: " + relayed.get(1));
        assertFalse(imsAnswer.contains("m=application"), "the IMS side offered no m=application: " + imsAnswer);
        assertTrue(imsAnswer.indexOf("m=audio 30000") < imsAnswer.indexOf("m=text 31004 RTP/AVP 100 98")
                && imsAnswer.indexOf("m=text") < imsAnswer.indexOf("m=video"), "the answer keeps the offer's m-line order (RFC 3264 §6): " + imsAnswer);

        // a re-INVITE from IMS (hold): no endpoint command, m=text out toward the browser and back in the answer
        String again = BrowserSdp.offerToBrowser(IMS_TEXT_OFFER.replace("m=audio 6000 RTP/AVP 8", "m=audio 6000 RTP/AVP 8\r\na=sendonly"),
                this::toBrowser, dc).browserSdp();
        assertFalse(relayed.get(2).contains("m=text"), "the relay got the re-offer's m=text: " + relayed.get(2));
        assertTrue(again.contains("m=application 31001"), "the re-offer keeps the T.140 channel's section: " + again);
        String reanswer = BrowserSdp.answerToIms(BROWSER_MT_ANSWER, this::toIms, dc).imsSdp();
        assertTrue(reanswer.contains("m=text 31004"), "the re-answer keeps the bridge's m=text: " + reanswer);
        assertEquals(List.of("text-offer-ims", "answer-browser"), asked, "a re-offer must not reach the endpoint");
    }

    @Test
    void mtAnEndpointRefusingTextRejectsMTextTowardImsAtItsPlace() {
        textFromIms = null;
        String browserOffer = BrowserSdp.offerToBrowser(IMS_TEXT_OFFER, this::toBrowser, dc).browserSdp();
        assertFalse(browserOffer.contains("m=application") || browserOffer.contains("m=text"), "nothing of text toward the browser: " + browserOffer);
        String imsAnswer = BrowserSdp.answerToIms(BROWSER_MT_ANSWER.replace("m=application 50000 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\na=setup:active\r\n", ""), this::toIms, dc).imsSdp();
        assertTrue(imsAnswer.contains("m=text 0 RTP/AVP 100 98\r\nm=video"), "m=text rejected at its place: " + imsAnswer);
    }

    @Test
    void mtTheBrowserRejectingTheT140ChannelRejectsMTextTowardIms() {
        BrowserSdp.offerToBrowser(IMS_TEXT_OFFER, this::toBrowser, dc);
        String imsAnswer = BrowserSdp.answerToIms(BROWSER_MT_ANSWER.replace("m=application 50000", "m=application 0"), this::toIms, dc).imsSdp();
        assertEquals(List.of("text-offer-ims", "drop: the browser rejected the data-channel section"), asked, "the endpoint's session goes, with its bridge");
        assertTrue(imsAnswer.contains("m=text 0 RTP/AVP 100 98\r\n"), "no bridge, no text toward IMS: " + imsAnswer);
    }

    // ---- an IMS offer with both m=application and m=text; text added and removed mid-call (issue #25) ----

    private static final String IMS_BOTH_OFFER = "v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 8\r\n"
            + "m=text 6002 RTP/AVP 100 98\r\na=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n"
            + "m=application 7000 UDP/DTLS/SCTP webrtc-datachannel\r\na=setup:actpass\r\na=dcmap:1000 label=\"chat\"\r\n";
    private static final String EP_BOTH_OFFER = EP_T140_OFFER.replace("a=dcmap:1001", "a=dcmap:1000 label=\"chat\"\r\na=dcmap:1001");
    private static final String BROWSER_BOTH_ANSWER = "v=0\r\ns=-\r\nc=IN IP4 198.18.0.2\r\nt=0 0\r\n"
            + "m=audio 50000 UDP/TLS/RTP/SAVPF 8\r\na=mid:0\r\na=setup:active\r\na=candidate:1 1 UDP 2130706431 198.18.0.2 50000 typ host\r\n"
            + "m=application 50000 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\na=setup:active\r\n"
            + "a=dcmap:1000 label=\"chat\"\r\na=dcmap:1001 label=\"t140\";subprotocol=\"t140\"\r\n";

    @Test
    void mtAnImsOfferWithApplicationAndTextGivesTheBrowserOneSectionWithBothAndImsBothAnswers() {
        textFromIms = new DataChannelSdp.Sdps(EP_BOTH_OFFER, EP_TEXT_ANSWER);
        String browserOffer = BrowserSdp.offerToBrowser(IMS_BOTH_OFFER, this::toBrowser, dc).browserSdp();
        assertEquals(List.of("offer-ims", "text-offer-ims"), asked, "the channels, then the text, at the endpoint");
        assertFalse(relayed.get(0).contains("m=text") || relayed.get(0).contains("m=application"), "the relay got the audio only: " + relayed.get(0));
        assertEquals(1, browserOffer.split("m=application ", -1).length - 1, "one data-channel section toward the browser: " + browserOffer);
        assertTrue(browserOffer.contains("a=dcmap:1000 label=\"chat\"\r\na=dcmap:1001 label=\"t140\";subprotocol=\"t140\""),
                "the IMS side's chat channel and the T.140 channel in it: " + browserOffer);
        assertFalse(browserOffer.contains("m=text"), browserOffer);
        String imsAnswer = BrowserSdp.answerToIms(BROWSER_BOTH_ANSWER, this::toIms, dc).imsSdp();
        assertEquals(List.of("offer-ims", "text-offer-ims", "answer-browser"), asked);
        int audio = imsAnswer.indexOf("m=audio 30000"), text = imsAnswer.indexOf("m=text 31004"), app = imsAnswer.indexOf("m=application 31002");
        assertTrue(audio >= 0 && audio < text && text < app, "the answer keeps the offer's order: audio, text, application: " + imsAnswer);
    }

    @Test
    void mtBothWithTheApplicationFirstKeepTheirOrderToo() {
        textFromIms = new DataChannelSdp.Sdps(EP_BOTH_OFFER, EP_TEXT_ANSWER);
        String offer = IMS_BOTH_OFFER.substring(0, IMS_BOTH_OFFER.indexOf("m=text")) + IMS_BOTH_OFFER.substring(IMS_BOTH_OFFER.indexOf("m=application"))
                + IMS_BOTH_OFFER.substring(IMS_BOTH_OFFER.indexOf("m=text"), IMS_BOTH_OFFER.indexOf("m=application"));
        BrowserSdp.offerToBrowser(offer, this::toBrowser, dc);
        String imsAnswer = BrowserSdp.answerToIms(BROWSER_BOTH_ANSWER, this::toIms, dc).imsSdp();
        int audio = imsAnswer.indexOf("m=audio 30000"), text = imsAnswer.indexOf("m=text 31004"), app = imsAnswer.indexOf("m=application 31002");
        assertTrue(audio >= 0 && audio < app && app < text, "audio, application, text as offered: " + imsAnswer);
    }

    @Test
    void mtBothWhenTheEndpointRefusesTheTextTheChannelsGoOnAndMTextIsRejected() {
        textFromIms = null;
        String browserOffer = BrowserSdp.offerToBrowser(IMS_BOTH_OFFER, this::toBrowser, dc).browserSdp();
        assertTrue(browserOffer.contains("a=dcmap:1000 label=\"chat\"") && !browserOffer.contains("t140"), browserOffer);
        String imsAnswer = BrowserSdp.answerToIms(BROWSER_BOTH_ANSWER, this::toIms, dc).imsSdp();
        assertTrue(imsAnswer.contains("m=text 0 RTP/AVP 100 98\r\nm=application 31002"), "m=text at port 0 in its place: " + imsAnswer);
    }

    @Test
    void mtTextAddedByAnImsReofferAndRemovedByAnotherEndsTheSession() {
        String audio = IMS_TEXT_OFFER.substring(0, IMS_TEXT_OFFER.indexOf("m=text"));
        BrowserSdp.offerToBrowser(audio, this::toBrowser, dc);
        assertEquals(List.of(), asked);
        String add = BrowserSdp.offerToBrowser(audio + IMS_TEXT_OFFER.substring(IMS_TEXT_OFFER.indexOf("m=text"), IMS_TEXT_OFFER.indexOf("m=video")),
                this::toBrowser, dc).browserSdp();
        assertTrue(add.contains("a=dcmap:1001 label=\"t140\";subprotocol=\"t140\""), "the re-offer gives the browser the T.140 channel: " + add);
        String imsAnswer = BrowserSdp.answerToIms(BROWSER_MT_ANSWER.substring(0, BROWSER_MT_ANSWER.indexOf("m=video")), this::toIms, dc).imsSdp();
        assertTrue(imsAnswer.contains("m=text 31004"), imsAnswer);
        String remove = BrowserSdp.offerToBrowser(audio + "m=text 0 RTP/AVP 100 98\r\n", this::toBrowser, dc).browserSdp();
        assertTrue(remove.contains("m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:dc\r\n"), "the T.140 channel's section goes (port 0): " + remove);
        String reanswer = BrowserSdp.answerToIms(BROWSER_MT_ANSWER.substring(0, BROWSER_MT_ANSWER.indexOf("m=video")).replace("m=application 50000", "m=application 0"),
                this::toIms, dc).imsSdp();
        assertTrue(reanswer.contains("m=text 0 RTP/AVP 100 98"), "m=text answered at port 0: " + reanswer);
        assertEquals(List.of("text-offer-ims", "answer-browser", "drop: the IMS side removed m=text (port 0), the call's only data-channel use"), asked);
    }

    @Test
    void mtTextRemovedBesideChannelsEndsTheTextOnly() {
        mtAnImsOfferWithApplicationAndTextGivesTheBrowserOneSectionWithBothAndImsBothAnswers();
        asked.clear();
        String browser = BrowserSdp.offerToBrowser(IMS_BOTH_OFFER.replace("m=text 6002", "m=text 0"), this::toBrowser, dc).browserSdp();
        assertTrue(browser.contains("m=application 31001"), "the channels stay: " + browser);
        String ims = BrowserSdp.answerToIms(BROWSER_BOTH_ANSWER, this::toIms, dc).imsSdp();
        assertTrue(ims.contains("m=text 0 RTP/AVP 100 98") && ims.contains("m=application 31002"), ims);
        assertEquals(List.of("drop-text: the IMS side removed m=text (port 0)"), asked);
    }

    @Test
    void moTheBrowserAddsTextMidCallAndRemovesItWithPort0() {
        String audio = BROWSER_OFFER.substring(0, BROWSER_OFFER.indexOf("m=application")).replace("a=group:BUNDLE 0 1", "a=group:BUNDLE 0");
        BrowserSdp.ToIms first = moOffer(audio);
        BrowserSdp.answerToBrowser(IMS_ANSWER.substring(0, IMS_ANSWER.indexOf("m=text")), first.browserSdp(), this::toBrowser, dc);
        BrowserSdp.ToIms add = BrowserSdp.offerToIms(BROWSER_OFFER, false, null, this::toIms, dc);
        assertTrue(add.imsSdp().contains("m=text 31004") && !add.imsSdp().contains("m=application"), "the re-INVITE adds m=text only: " + add.imsSdp());
        BrowserSdp.answerToBrowser(IMS_ANSWER, add.browserSdp(), this::toBrowser, dc);
        String removal = BrowserSdp.offerToIms(BROWSER_OFFER.replace("m=application 9", "m=application 0"), false, null, this::toIms, dc).imsSdp();
        assertTrue(removal.contains("m=text 0 RTP/AVP 100 98"), "the re-INVITE removes m=text (port 0): " + removal);
        assertEquals(List.of("offer-browser", "text-offer 1001", "text-answer", "drop: the browser removed the data-channel section (port 0)"), asked);
    }
}
