package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class ImsSdpFilterTest {
    /** What rtpengine 10.5 returned for the IMS leg of a Chrome offer (RTP/AVP, ICE removed, extmap stripped). */
    static final String FROM_RTPENGINE = String.join("\r\n", "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "a=extmap-allow-mixed", "a=msid-semantic: WMS s", "m=audio 30000 RTP/AVP 111 101", "c=IN IP4 127.0.0.1",
            "a=msid:s t", "a=ssrc:1 cname:x", "a=ssrc:1 msid:s t", "a=mid:0", "a=rtpmap:111 opus/48000/2",
            "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtcp-fb:111 transport-cc", "a=rtpmap:101 telephone-event/8000",
            "a=sendrecv", "a=rtcp:30001", "a=curr:qos local none", "") ;

    @Test
    void dropsBrowserOnlyLinesAndKeepsTheMedia() {
        String ims = ImsSdpFilter.toIms(FROM_RTPENGINE);
        for (String gone : new String[] {"extmap-allow-mixed", "msid-semantic", "a=msid:", "a=ssrc:", "a=mid:", "rtcp-fb"}) {
            assertFalse(ims.contains(gone), gone + " left in:\n" + ims);
        }
        for (String kept : new String[] {"m=audio 30000 RTP/AVP 111 101", "c=IN IP4 127.0.0.1", "a=rtpmap:111 opus/48000/2",
                "a=fmtp:111 minptime=10;useinbandfec=1", "a=rtpmap:101 telephone-event/8000", "a=sendrecv", "a=rtcp:30001",
                "a=curr:qos local none"}) {
            assertTrue(ims.contains(kept + "\r\n"), kept + " missing in:\n" + ims);
        }
        assertTrue(ims.startsWith("v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio"));
    }

    @Test
    void attributeNamesMatchWholeNamesOnly() {
        // a=rtcp (the IMS leg's own RTCP port) must not be taken for a=rtcp-fb / a=rtcp-rsize.
        assertEquals("v=0\na=rtcp:30001\n", ImsSdpFilter.toIms("v=0\na=rtcp:30001\na=rtcp-rsize\n"));
        assertNull(ImsSdpFilter.toIms(null));
    }
}
