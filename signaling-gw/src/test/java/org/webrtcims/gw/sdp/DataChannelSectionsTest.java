package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The data-channel section taken out of an SDP for the endpoint and put back at its m-line index. */
class DataChannelSectionsTest {
    private static final String BROWSER_OFFER = String.join("\r\n",
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1", "a=fingerprint:sha-256 AA:BB",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=mid:0", "a=rtpmap:111 opus/48000/2",
            "m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 0.0.0.0", "a=mid:1", "a=sctp-port:5000",
            "a=dcmap:1000 label=\"chat\"", "a=dcsa:1000 3gpp-req-app:org.lab.chat", "") ;

    private static final String ENDPOINT_SDP = String.join("\r\n",
            "v=0", "o=- 9 1 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=ice-lite",
            "m=application 31000 UDP/DTLS/SCTP webrtc-datachannel", "c=IN IP4 127.0.0.1", "a=ice-ufrag:abcd",
            "a=setup:actpass", "a=sctp-port:5000", "a=dcmap:1000 label=\"chat\"", "");

    @Test
    void splitTakesTheSectionOutAndItsMidOutOfTheBundleGroup() {
        DataChannelSections.Split s = DataChannelSections.split(BROWSER_OFFER);
        assertNotNull(s, "the offer has a data-channel section");
        assertEquals(1, s.index(), "the section is the second m-line");
        assertEquals("1", s.mid());
        assertFalse(s.rejected());
        assertFalse(s.rest().contains("m=application"), "rtpengine's part must not carry the section: " + s.rest());
        assertTrue(s.rest().contains("a=group:BUNDLE 0\r\n"), "the group keeps only the audio mid: " + s.rest());
        assertTrue(s.rest().contains("a=fingerprint:sha-256 AA:BB"), "session-level lines stay");
        assertTrue(s.section().startsWith("m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"), s.section());
        assertTrue(s.section().contains("a=dcsa:1000 3gpp-req-app:org.lab.chat\r\n"));
        assertEquals(List.of(1000), DataChannelSections.dcmapIds(s.section()));
    }

    @Test
    void anSdpWithoutADataChannelSectionIsNotSplit() {
        assertNull(DataChannelSections.split("v=0\r\nm=audio 9 RTP/AVP 0\r\n"));
        assertNull(DataChannelSections.split("v=0\r\nm=application 9 UDP/DTLS/SCTP other\r\n"), "another application format");
        assertFalse(DataChannelSections.has(null));
    }

    @Test
    void mergePutsTheSectionBackAtItsIndex() {
        String rest = "v=0\r\ns=-\r\nm=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\nm=video 30002 RTP/AVP 96\r\n";
        String section = DataChannelSections.sectionOf(ENDPOINT_SDP, null);
        assertTrue(section.startsWith("m=application 31000 "), "only the media section: " + section);
        assertFalse(section.contains("a=ice-lite"), "session-level lines stay out of the section");
        String merged = DataChannelSections.merge(rest, section, 1);
        assertTrue(merged.indexOf("m=audio") < merged.indexOf("m=application") && merged.indexOf("m=application") < merged.indexOf("m=video"),
                "audio, data channel, video: " + merged);
        assertTrue(DataChannelSections.merge(rest, section, 5).endsWith("a=dcmap:1000 label=\"chat\"\r\n"), "beyond the last m-line: appended");
    }

    @Test
    void aMidIsAddedOnlyWhenTheSectionHasNone() {
        assertTrue(DataChannelSections.sectionOf(ENDPOINT_SDP, "dc").contains("\r\na=mid:dc\r\n"));
        String withMid = ENDPOINT_SDP.replace("a=sctp-port", "a=mid:x\r\na=sctp-port");
        assertFalse(DataChannelSections.sectionOf(withMid, "dc").contains("a=mid:dc"));
        assertEquals("dc2", DataChannelSections.freeMid("v=0\r\nm=audio 1 RTP/AVP 0\r\na=mid:dc\r\n"));
    }

    @Test
    void withoutBundleDropsOnlyTheGroupLines() {
        assertEquals("v=0\r\ns=-\r\nm=audio 1 RTP/AVP 0\r\na=mid:0\r\n",
                DataChannelSections.withoutBundle("v=0\r\ns=-\r\na=group:BUNDLE 0\r\nm=audio 1 RTP/AVP 0\r\na=mid:0\r\n"));
    }

    @Test
    void aRejectedSectionHasPortZeroAndKeepsItsMid() {
        DataChannelSections.Split s = DataChannelSections.split(BROWSER_OFFER);
        String rej = DataChannelSections.rejected(s.section());
        assertEquals("m=application 0 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:1\r\n", rej);
        assertTrue(DataChannelSections.split("v=0\r\n" + rej).rejected());
    }
}
