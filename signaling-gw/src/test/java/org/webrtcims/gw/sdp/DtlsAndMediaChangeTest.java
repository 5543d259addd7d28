package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** DTLS roles (RFC 4145/5763: first answers and re-offers) and "does IMS need to know" for re-offers. */
class DtlsAndMediaChangeTest {
    private static final String IMS = "v=0\r\no=- 10 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio 30000 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\na=sendrecv\r\n";

    @Test
    void rtpengineTakesTheRoleOppositeToTheBrowserAnswer() {
        assertEquals("passive", DtlsRole.oppositeOf("v=0\r\na=setup:active\r\n"));
        assertEquals("active", DtlsRole.oppositeOf("v=0\r\na=setup:passive\r\n"));
        assertEquals("active", DtlsRole.oppositeOf("v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"), "RFC 4145 §4.1: an answer defaults to passive");
    }

    @Test
    void rtpengineAnsweringABrowserOfferFollowsRfc5763() {
        assertEquals(DtlsRole.EITHER, DtlsRole.answering("v=0\r\na=setup:actpass\r\n"), "actpass: the relay's configuration picks");
        assertEquals("passive", DtlsRole.answering("v=0\r\na=setup:active\r\n"));
        assertEquals("active", DtlsRole.answering("v=0\r\na=setup:passive\r\n"));
        assertEquals("passive", DtlsRole.answering("v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\n"), "no a=setup: the offerer is active");
    }

    @Test
    void missingSetupIsWrittenOutPerMediaSectionWithRfc4145Defaults() {
        String sdp = "v=0\r\na=fingerprint:sha-256 AB\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n"
                + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n";
        String offer = DtlsSetupDefaults.explicit(sdp, true);
        assertEquals(2, offer.split("a=setup:active\r\n", -1).length - 1);
        assertTrue(offer.contains("opus/48000/2\r\na=setup:active\r\nm=video"));
        assertTrue(DtlsSetupDefaults.explicit(sdp, false).endsWith("VP8/90000\r\na=setup:passive\r\n"));
        String withSetup = sdp.replace("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n", "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=setup:actpass\r\n");
        assertSame(withSetup, DtlsSetupDefaults.explicit(withSetup, true), "an SDP with a=setup is left alone");
        String plain = "v=0\r\nm=audio 6000 RTP/AVP 8\r\n";
        assertSame(plain, DtlsSetupDefaults.explicit(plain, true), "no fingerprint: not DTLS, left alone");
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
