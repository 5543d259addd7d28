package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class UsableAddressTest {
    private static final String HEAD = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n";

    @Test
    void mdnsOnlyCandidatesAreUsable() {
        String sdp = HEAD + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\n"
                + "a=candidate:0 1 UDP 2122252543 4e5bd97a-3666-4b08-9d83-5eeea066c238.local 36332 typ host\r\n";
        assertNull(UsableAddress.problem(sdp));
    }

    @Test
    void realConnectionAddressWithoutCandidatesIsUsable() {
        assertNull(UsableAddress.problem(HEAD + "c=IN IP4 198.18.0.2\r\nm=audio 4000 RTP/AVP 0\r\n"));
    }

    @Test
    void zeroAddressWithoutCandidatesIsRefused() {
        String p = UsableAddress.problem(HEAD + "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=sendrecv\r\n");
        assertNotNull(p);
        assertTrue(p.startsWith("m=audio has no ICE candidate"), p);
        assertTrue(p.contains("c=IN IP4 0.0.0.0"), p);
    }

    @Test
    void missingConnectionLineWithoutCandidatesIsRefused() {
        assertTrue(UsableAddress.problem(HEAD + "m=video 9 UDP/TLS/RTP/SAVPF 96\r\n").contains("no c= line"));
    }

    @Test
    void onlyActiveSectionsCount() {
        String sdp = HEAD + "c=IN IP4 198.18.0.2\r\nm=audio 4000 RTP/AVP 0\r\nm=video 0 RTP/AVP 96\r\nc=IN IP4 0.0.0.0\r\n";
        assertNull(UsableAddress.problem(sdp));
        String bad = HEAD + "m=audio 9 RTP/AVP 0\r\nc=IN IP4 0.0.0.0\r\na=candidate:1 1 udp 1 198.18.0.2 4000 typ host\r\n"
                + "m=video 9 RTP/AVP 96\r\nc=IN IP4 0.0.0.0\r\n";
        assertTrue(UsableAddress.problem(bad).startsWith("m=video"), UsableAddress.problem(bad));
    }

    @Test
    void emptySdpIsRefused() {
        assertEquals("empty SDP", UsableAddress.problem(" "));
    }
}
