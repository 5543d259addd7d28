package org.webrtcims.gw.sdp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class MdnsSdpTest {
    private static String sdp(String... lines) {
        return String.join("\r\n", lines) + "\r\n";
    }

    @Test
    void firefoxMdnsOnlyOfferGetsTheFallbackAndLosesItsHostNamedRtcp() {
        String in = sdp("v=0", "o=mozilla...THIS_IS_SDPARTA-99.0 1 0 IN IP4 0.0.0.0", "s=-", "t=0 0",
                "m=audio 9 UDP/TLS/RTP/SAVPF 109", "c=IN IP4 0.0.0.0",
                "a=candidate:0 1 UDP 2122252543 f1.local 48028 typ host",
                "a=candidate:0 2 UDP 2122252542 f1.local 40147 typ host",
                "a=rtcp:40147 IN IP4 f1.local", "a=rtcp-mux");
        assertEquals(sdp("v=0", "o=mozilla...THIS_IS_SDPARTA-99.0 1 0 IN IP4 0.0.0.0", "s=-", "t=0 0",
                "m=audio 9 UDP/TLS/RTP/SAVPF 109", "c=IN IP4 192.0.2.1",
                "a=candidate:0 1 UDP 2122252543 f1.local 48028 typ host",
                "a=candidate:0 2 UDP 2122252542 f1.local 40147 typ host", "a=rtcp-mux"),
                MdnsSdp.forRtpengine(in, "192.0.2.1"));
    }

    @Test
    void aLiteralCandidateOfTheSectionWinsOverTheFallback() {
        String in = sdp("v=0", "m=audio 9 UDP/TLS/RTP/SAVPF 109", "c=IN IP4 0.0.0.0",
                "a=candidate:0 1 UDP 2122252543 f1.local 48028 typ host",
                "a=candidate:1 1 UDP 1686052607 198.18.1.2 48028 typ srflx raddr 0.0.0.0 rport 0",
                "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0",
                "a=candidate:0 1 UDP 2122252543 f1.local 40000 typ host");
        String out = MdnsSdp.forRtpengine(in, "192.0.2.1");
        assertEquals(sdp("v=0", "m=audio 9 UDP/TLS/RTP/SAVPF 109", "c=IN IP4 198.18.1.2",
                "a=candidate:0 1 UDP 2122252543 f1.local 48028 typ host",
                "a=candidate:1 1 UDP 1686052607 198.18.1.2 48028 typ srflx raddr 0.0.0.0 rport 0",
                "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 192.0.2.1",
                "a=candidate:0 1 UDP 2122252543 f1.local 40000 typ host"), out);
    }

    @Test
    void chromiumWithHostAddressesIsLeftAlone() {
        String in = sdp("v=0", "m=audio 48363 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 198.18.0.2",
                "a=rtcp:9 IN IP4 0.0.0.0", "a=candidate:1 1 udp 2122260223 198.18.0.2 48363 typ host");
        assertEquals(in, MdnsSdp.forRtpengine(in, "192.0.2.1"));
        assertNull(MdnsSdp.forRtpengine(null, "192.0.2.1"));
        String plain = sdp("v=0", "m=audio 6000 RTP/AVP 0", "c=IN IP4 127.0.0.1");
        assertSame(plain, MdnsSdp.forRtpengine(plain, "192.0.2.1"));
    }
}
