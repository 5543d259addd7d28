package org.webrtcims.gw.media;

import org.webrtcims.gw.sdp.SdpCodec;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/** Which codecs the MO offer toward IMS loses: none by ng `codec` unless forced (browser-only formats: sdp/BrowserOnlyFormats). */
class CodecPolicyTest {
    // Chrome's shape: Opus + RED audio, VP8 + rtx + H264 + red + ulpfec video
    private static final String CHROME_AV = String.join("\r\n",
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111 63 8 126",
            "a=rtpmap:111 opus/48000/2", "a=rtpmap:63 red/48000/2", "a=rtpmap:8 PCMA/8000",
            "a=rtpmap:126 telephone-event/8000",
            "m=video 9 UDP/TLS/RTP/SAVPF 96 97 102 118 120",
            "a=rtpmap:96 VP8/90000", "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", "a=rtpmap:102 H264/90000",
            "a=rtpmap:118 red/90000", "a=rtpmap:120 ulpfec/90000", "");

    private static final String OPUS_ONLY = String.join("\r\n",
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=rtpmap:111 opus/48000/2", "");

    @Test
    void passThroughStripsNothingByNg() {
        // an ng strip would make rtpengine 10.5 re-encode the browser's incoming audio at every re-offer (BrowserOnlyFormats)
        assertNull(CodecPolicy.moPassThrough(CHROME_AV), "a pass-through offer gets no ng codec dictionary, not even for red/rtx");
    }

    @Test
    void passThroughWithoutBrowserOnlyFormatsAddsNothing() {
        assertNull(CodecPolicy.moPassThrough(OPUS_ONLY));
    }

    @Test
    void forcedCodecStripsOnlyTheBrowsersOwnCopyAndKeepsVideoCodecs() {
        Map<String, Object> dict = CodecPolicy.moForced(ImsCodec.parse("PCMA"), CHROME_AV);
        assertEquals(List.of("PCMA"), dict.get("strip"));
        assertEquals(List.of("all"), dict.get("mask"));
        // no video name in transcode: rtpengine cannot transcode video, VP8/H264 pass through
        assertEquals(List.of("PCMA/8000/1/64000", "telephone-event"), dict.get("transcode"));
    }

    @Test
    void videoCodecsAreReadPerKind() {
        assertEquals("VP8/90000", SdpCodec.firstVideoCodec(CHROME_AV));
        assertEquals(List.of("VP8", "rtx", "H264", "red", "ulpfec"), SdpCodec.encodings(CHROME_AV, "video"));
        assertNull(SdpCodec.firstVideoCodec(OPUS_ONLY));
    }
}
