package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** The SDP helpers of mid-call offers: DTLS role kept across re-offers, and "does IMS need to know". */
class MidCallSdpTest {
    private static final String IMS = "v=0\r\no=- 10 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\na=sendrecv\r\n";

    @Test
    void rtpengineTakesTheRoleOppositeToTheBrowserAnswer() {
        assertEquals("passive", DtlsRole.oppositeOf("v=0\r\na=setup:active\r\n"));
        assertEquals("active", DtlsRole.oppositeOf("v=0\r\na=setup:passive\r\n"));
        assertEquals("passive", DtlsRole.oppositeOf("v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"), "RFC 4145: answerer defaults to active");
    }

    @Test
    void aNewOriginVersionOrQosStatusIsNoChange() {
        assertFalse(MediaChange.changes(IMS, IMS.replace("o=- 10 1", "o=- 10 2")));
        assertFalse(MediaChange.changes(IMS, IMS + "a=curr:qos local sendrecv\r\na=des:qos mandatory local sendrecv\r\n"));
        assertFalse(MediaChange.changes(IMS, IMS.replace("\r\n", "\n")));
    }

    @Test
    void directionPortOrCodecIsAChange() {
        assertTrue(MediaChange.changes(IMS, IMS.replace("a=sendrecv", "a=sendonly")));
        assertTrue(MediaChange.changes(IMS, IMS.replace("30000", "30002")));
        assertTrue(MediaChange.changes(IMS, IMS.replace("111", "8")));
        assertTrue(MediaChange.changes(null, IMS));
    }
}
