package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SDP codecs that stand in for rtpengine's until it has seen RTP. */
class NegotiatedCodecsTest {
    private static final Map<String, Object> NO_RTP_YET = Map.of("result", "ok", "tags", Map.of(
            "br", Map.of("medias", List.of(Map.of("type", "audio", "streams", List.of()),
                    Map.of("type", "video", "streams", List.of()))),
            "ims", Map.of("medias", List.of(Map.of("type", "audio", "streams", List.of()),
                    Map.of("type", "video", "streams", List.of())))));

    @Test
    void theAnswersCodecsStandInUntilForgotten() {
        NegotiatedCodecs codecs = new NegotiatedCodecs();
        codecs.remember("c1", "v=0\r\nm=audio 1 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\n"
                        + "m=video 2 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n",
                "v=0\r\nm=audio 3 RTP/AVP 8\r\na=rtpmap:8 PCMA/8000\r\nm=video 4 RTP/AVP 97\r\na=rtpmap:97 H264/90000\r\n");
        MediaStats s = codecs.statsOf("c1", NO_RTP_YET, "br");
        assertEquals("opus/48000", s.codecBrowser());
        assertEquals("PCMA/8000", s.codecIms());
        assertEquals(new MediaStats.Video("VP8/90000", "H264/90000", 0, 0), s.video());
        codecs.forget("c1");
        MediaStats after = codecs.statsOf("c1", NO_RTP_YET, "br");
        assertNull(after.codecBrowser(), "forgotten with the call's delete");
        assertNull(codecs.statsOf("c1", Map.of("result", "ok"), "br"), "a reply without tags has no counters");
    }
}
