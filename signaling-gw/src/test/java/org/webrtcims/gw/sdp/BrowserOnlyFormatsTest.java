package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The browser-only payload formats leave a browser offer before the relay sees it; everything else stays as it was. */
class BrowserOnlyFormatsTest {
    // Chromium 156's shape: Opus + RED + CN + telephone-event audio, VP8 + rtx + red + ulpfec video
    private static final String CHROME = String.join("\r\n",
            "v=0", "o=- 1 2 IN IP4 198.18.0.2", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
            "m=audio 48450 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126", "c=IN IP4 198.18.0.2",
            "a=mid:0", "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1",
            "a=rtpmap:63 red/48000/2", "a=fmtp:63 111/111", "a=rtpmap:9 G722/8000", "a=rtpmap:0 PCMU/8000",
            "a=rtpmap:8 PCMA/8000", "a=rtpmap:13 CN/8000", "a=rtpmap:110 telephone-event/48000",
            "a=rtpmap:126 telephone-event/8000", "a=ssrc:1499350174 cname:x",
            "m=video 48451 UDP/TLS/RTP/SAVPF 96 97 123 124 125", "c=IN IP4 198.18.0.2", "a=mid:1",
            "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtcp-fb:96 nack pli", "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
            "a=rtpmap:123 red/90000", "a=rtpmap:124 rtx/90000", "a=fmtp:124 apt=123", "a=rtpmap:125 ulpfec/90000",
            "a=ssrc-group:FID 1 2", "");

    @Test
    void takesRedRtxAndUlpfecOutOfEachSectionWithTheirLines() {
        String out = BrowserOnlyFormats.removed(CHROME);
        assertTrue(out.contains("\r\nm=audio 48450 UDP/TLS/RTP/SAVPF 111 9 0 8 13 110 126\r\n"), out);
        assertTrue(out.contains("\r\nm=video 48451 UDP/TLS/RTP/SAVPF 96\r\n"), out);
        for (String gone : new String[] {"a=rtpmap:63 ", "a=fmtp:63 ", "a=rtpmap:97 ", "a=fmtp:97 ", "a=rtpmap:123 ", "a=rtpmap:124 ",
                "a=fmtp:124 ", "a=rtpmap:125 "}) {
            assertFalse(out.contains(gone), gone + "left in:\n" + out);
        }
        // the rest line by line as it was: the codecs, their feedback, comfort noise, DTMF, the section attributes
        for (String kept : new String[] {"a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc", "a=fmtp:111 minptime=10;useinbandfec=1",
                "a=rtpmap:13 CN/8000", "a=rtpmap:110 telephone-event/48000", "a=rtpmap:126 telephone-event/8000", "a=ssrc:1499350174 cname:x",
                "a=rtcp-fb:96 nack pli", "a=ssrc-group:FID 1 2", "a=group:BUNDLE 0 1", "a=mid:1"}) {
            assertTrue(out.contains("\r\n" + kept + "\r\n"), kept + " missing in:\n" + out);
        }
        assertTrue(out.endsWith("a=ssrc-group:FID 1 2\r\n"), out);
    }

    @Test
    void anOfferWithoutThemIsReturnedUntouched() {
        String firefox = "v=0\no=- 1 2 IN IP4 198.18.0.2\ns=-\nt=0 0\nm=audio 9 UDP/TLS/RTP/SAVPF 109 9 0 8 101\n"
                + "a=rtpmap:109 opus/48000/2\na=rtpmap:101 telephone-event/8000\n";
        assertSame(firefox, BrowserOnlyFormats.removed(firefox));
        assertNull(BrowserOnlyFormats.removed(null));
    }

    @Test
    void aSectionOfferingNothingElseAndOtherMediaAreLeftToTheRelay() {
        String sdp = "v=0\nm=audio 9 RTP/AVP 63\na=rtpmap:63 red/48000/2\nm=text 9 RTP/AVP 98 100\na=rtpmap:98 t140/1000\n"
                + "a=rtpmap:100 red/1000\n";
        // an audio section of red alone stays whole (the relay refuses it); RFC 4103 text keeps its red
        assertSame(sdp, BrowserOnlyFormats.removed(sdp));
    }

    @Test
    void theRelayGetsTheOfferWithoutThem() {
        String[] relayed = new String[1];
        String offer = CHROME.replace("a=mid:0\r\n", "a=mid:0\r\na=fingerprint:sha-256 AA:BB\r\na=setup:actpass\r\n"
                + "a=candidate:1 1 UDP 2130706431 198.18.0.2 48450 typ host\r\n");
        BrowserSdp.offerToIms(offer, false, null, sdp -> { relayed[0] = sdp; return sdp; }, new DataChannelSdp(null));
        assertTrue(relayed[0].contains("m=audio 48450 UDP/TLS/RTP/SAVPF 111 9 0 8 13 110 126\r\n"), relayed[0]);
        assertFalse(relayed[0].contains("red/"), "red reached the relay:\n" + relayed[0]);
    }
}
