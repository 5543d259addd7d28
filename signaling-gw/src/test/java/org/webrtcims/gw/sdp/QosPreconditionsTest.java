package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class QosPreconditionsTest {
    static final String IMS = "v=0\r\no=- 1545 2 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio 30010 RTP/AVP 111\r\na=rtpmap:111 opus/48000/2\r\na=rtcp:30011\r\n"
            + "m=video 0 RTP/AVP 96\r\n";

    @Test
    void writesSegmentedStatusOnActiveAvSectionsOnly() {
        String s = QosPreconditions.withStatus(IMS, new QosPreconditions.Status("none", "none", "optional", false));
        String audio = s.substring(s.indexOf("m=audio"), s.indexOf("m=video"));
        assertTrue(audio.endsWith("a=curr:qos local none\r\na=curr:qos remote none\r\na=des:qos mandatory local sendrecv\r\n"
                + "a=des:qos optional remote sendrecv\r\n"), audio);
        assertFalse(s.substring(s.indexOf("m=video")).contains("qos"), "disabled m-line gets no qos lines");
        assertFalse(s.contains("a=conf"));
        assertTrue(QosPreconditions.present(s));
    }

    @Test
    void replacesEarlierLinesAndAddsConfirmationRequest() {
        String first = QosPreconditions.withStatus(IMS, new QosPreconditions.Status("none", "none", "mandatory", true));
        String second = QosPreconditions.withStatus(first, new QosPreconditions.Status("sendrecv", "sendrecv", "mandatory", false));
        assertEquals(1, second.split("a=curr:qos local", -1).length - 1);
        assertTrue(second.contains("a=curr:qos local sendrecv"));
        assertFalse(second.contains("a=conf:qos"));
        assertTrue(first.contains("a=conf:qos remote sendrecv"));
    }

    @Test
    void readsThePeersLocalStatusAndConfirmationRequest() {
        String peer = "v=0\r\nm=audio 6000 RTP/AVP 8\r\na=curr:qos local sendrecv\r\na=curr:qos remote none\r\n"
                + "a=des:qos mandatory local sendrecv\r\na=conf:qos remote sendrecv\r\n";
        assertEquals("sendrecv", QosPreconditions.peerLocalStatus(peer));
        assertTrue(QosPreconditions.peerWantsConfirmation(peer));
        assertEquals("none", QosPreconditions.peerLocalStatus("v=0\r\nm=audio 6000 RTP/AVP 8\r\n"));
        assertFalse(QosPreconditions.present("v=0\r\nm=audio 6000 RTP/AVP 8\r\n"));
    }

    @Test
    void nextVersionBumpsTheOriginVersionOnly() {
        assertTrue(QosPreconditions.nextVersion(IMS).startsWith("v=0\r\no=- 1545 3 IN IP4 127.0.0.1\r\n"));
    }
}
