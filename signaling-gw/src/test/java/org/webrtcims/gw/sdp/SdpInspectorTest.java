package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class SdpInspectorTest {
    static final String CHROME_OFFER = String.join("\r\n",
            "v=0", "o=- 4611731400430051336 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=extmap-allow-mixed",
            "a=msid-semantic: WMS stream", "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126",
            "c=IN IP4 0.0.0.0", "a=rtcp:9 IN IP4 0.0.0.0",
            "a=candidate:1 1 udp 2122260223 127.0.0.1 50000 typ host generation 0",
            "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx", "a=ice-options:trickle",
            "a=fingerprint:sha-256 6B:8B:F0:65:5F:78:E2:51:3B:AC:6F:F3:3F:46:1B:35:DC:B8:5F:64:1A:24:C2:43:F0:A1:58:D0:A1:2C:19:08",
            "a=setup:actpass", "a=mid:0", "a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level", "a=sendrecv",
            "a=msid:stream track", "a=rtcp-mux", "a=rtpmap:111 opus/48000/2", "a=rtcp-fb:111 transport-cc",
            "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtpmap:63 red/48000/2", "a=rtpmap:9 G722/8000",
            "a=rtpmap:0 PCMU/8000", "a=rtpmap:8 PCMA/8000", "a=ssrc:1 cname:x", "") ;

    @Test
    void summarisesAChromeOffer() {
        SdpInspector.Summary s = SdpInspector.inspect(CHROME_OFFER);
        assertEquals(1, s.media().size());
        assertEquals("audio", s.media().get(0).kind());
        assertEquals("UDP/TLS/RTP/SAVPF", s.media().get(0).protocol());
        assertEquals("opus/48000", s.firstAudioCodec());
    }

    @Test
    void staticPayloadTypesNeedNoRtpmap() {
        String sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 8 0\r\n";
        assertEquals("PCMA/8000", SdpInspector.inspect(sdp).firstAudioCodec());
    }

    @Test
    void rejectsGarbageWithAOneLineReason() {
        assertThrows(IllegalArgumentException.class, () -> SdpInspector.inspect(null));
        assertThrows(IllegalArgumentException.class, () -> SdpInspector.inspect(""));
        assertThrows(IllegalArgumentException.class, () -> SdpInspector.inspect("hello"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SdpInspector.inspect("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"));
        assertTrue(e.getMessage().contains("m="), e.getMessage());
    }

    @Test
    void anSdpCheckedTwiceInARowOnOneThreadIsParsedOnce() {
        SdpInspector.Summary first = SdpInspector.inspect(CHROME_OFFER);
        assertSame(first, SdpInspector.inspect(new String(CHROME_OFFER.toCharArray())),
                "the same SDP again (the API's check, then its media step) gets the summary of the first parse");
        String other = CHROME_OFFER.replace("m=audio 9 ", "m=audio 10 ");
        assertEquals(10, SdpInspector.inspect(other).media().get(0).port(), "another SDP is parsed for itself");
        assertThrows(IllegalArgumentException.class, () -> SdpInspector.inspect(CHROME_OFFER.replace("m=audio 9 UDP", "m=audio x UDP")),
                "a broken SDP is refused whatever was parsed before");
        assertEquals(10, SdpInspector.inspect(other).media().get(0).port());
    }
}
