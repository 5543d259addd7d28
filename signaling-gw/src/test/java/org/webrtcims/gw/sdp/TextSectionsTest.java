package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class TextSectionsTest {
    private static final String DC_T140 = "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\n"
            + "a=dcmap:1001 label=\"rtt\";subprotocol=\"t140\"\r\n";
    private static final String DC_BOTH = "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\n"
            + "a=dcmap:1000 label=\"chat\"\r\na=dcsa:1000 3gpp-req-app:org.lab.chat\r\na=dcmap:1001 label=\"rtt\";ordered=true;subprotocol=\"T140\"\r\n";
    private static final String IMS_ANSWER = "v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 8\r\na=sendrecv\r\n"
            + "m=text 6002 RTP/AVP 100 98\r\na=rtpmap:100 red/1000\r\na=fmtp:100 98/98/98\r\na=rtpmap:98 t140/1000\r\n";

    @Test
    void theT140ChannelIsTheDcmapWithSubprotocolT140() {
        assertEquals(1001, TextSections.t140Channel(DC_T140), "a=dcmap with subprotocol=\"t140\" (RFC 8865 §4.2)");
        assertEquals(1001, TextSections.t140Channel(DC_BOTH), "the t140 channel among others, subprotocol case-insensitive, after another option");
        assertNull(TextSections.t140Channel("m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=dcmap:1000 label=\"t140\"\r\n"),
                "a label t140 without the subprotocol is no T.140 channel");
        assertNull(TextSections.t140Channel("m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=dcmap:1000 label=\"x\";subprotocol=\"t140x\"\r\n"),
                "another subprotocol");
    }

    @Test
    void onlyT140WhenEveryDcmapIsAT140Channel() {
        assertTrue(TextSections.onlyT140(DC_T140));
        assertFalse(TextSections.onlyT140(DC_BOTH), "a chat channel beside it needs m=application toward IMS");
        assertFalse(TextSections.onlyT140("m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"), "no dcmap at all is not text-only");
    }

    @Test
    void splitTakesTheFirstTextSectionOut() {
        TextSections.Split s = TextSections.split(IMS_ANSWER);
        assertNotNull(s, "the answer has m=text");
        assertEquals("v=0\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 6000 RTP/AVP 8\r\na=sendrecv\r\n", s.rest(), "the rest keeps audio and the session lines");
        assertTrue(s.section().startsWith("m=text 6002 RTP/AVP 100 98\r\n") && s.section().endsWith("a=rtpmap:98 t140/1000\r\n"), s.section());
        assertFalse(s.rejected());
        assertTrue(TextSections.split(IMS_ANSWER.replace("m=text 6002", "m=text 0")).rejected(), "port 0 rejects text");
        assertNull(TextSections.split("v=0\r\nm=audio 6000 RTP/AVP 8\r\n"), "no m=text: null");
    }

    @Test
    void appendAndRejected() {
        String section = TextSections.sectionOf("v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=text 31010 RTP/AVP 100 98\r\nc=IN IP4 127.0.0.1\r\n");
        assertEquals("m=text 31010 RTP/AVP 100 98\r\nc=IN IP4 127.0.0.1\r\n", section, "the endpoint's section from its m= line on");
        assertEquals("v=0\r\nm=audio 1 RTP/AVP 8\r\nm=text 31010 RTP/AVP 100 98\r\nc=IN IP4 127.0.0.1\r\n",
                TextSections.append("v=0\r\nm=audio 1 RTP/AVP 8\r\n", section), "m=text is the last m-line");
        assertEquals("m=text 0 RTP/AVP 100 98\r\n", TextSections.rejected(section));
        assertThrows(IllegalArgumentException.class, () -> TextSections.sectionOf("v=0\r\ns=-\r\n"), "an endpoint SDP without m=text");
    }
}
