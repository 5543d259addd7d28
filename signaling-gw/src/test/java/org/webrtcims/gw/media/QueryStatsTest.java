package org.webrtcims.gw.media;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** rtpengine 10.5 query replies read into per-direction counters, codecs and the transcoding verdict. */
class QueryStatsTest {
    @Test
    void queryCountsTheVideoMlineSeparately() {
        Map<String, Object> reply = Map.of("result", "ok", "tags", Map.of(
                "brtag", Map.of("medias", List.of(
                        Map.of("type", "audio", "codec", "opus/48000/2", "streams", List.of(
                                Map.of("flags", List.of("RTP", "RTCP"), "stats", Map.of("packets", 100L, "bytes", 9000L)))),
                        Map.of("type", "video", "codec", "VP8/90000", "streams", List.of(
                                Map.of("flags", List.of("RTP", "RTCP"), "stats", Map.of("packets", 60L, "bytes", 60000L)))))),
                "imstag", Map.of("medias", List.of(
                        Map.of("type", "audio", "streams", List.of(
                                Map.of("flags", List.of("RTP"), "stats", Map.of("packets", 90L, "bytes", 8000L)))),
                        Map.of("type", "video", "codec", "VP8/90000", "streams", List.of(
                                Map.of("flags", List.of("RTP"), "stats", Map.of("packets", 55L, "bytes", 50000L)),
                                Map.of("flags", List.of("RTCP"), "stats", Map.of("packets", 4L, "bytes", 300L))))))));
        List<MediaStats> out = new ArrayList<>();
        out.add(QueryStats.from(reply, "brtag", null, null, null, null));
        MediaStats s = out.get(0);
        assertEquals(160, s.packetsToIms(), "totals cover audio + video");
        assertEquals(145, s.packetsToBrowser());
        assertEquals(new MediaStats.Video("VP8/90000", "VP8/90000", 60, 55), s.video());
    }

    /** rtpengine 10.5's "transcoding" media flag (codec engine: codec change or inject-DTMF) or differing codecs. */
    @Test
    void queryTellsTranscodedFromRelayed() {
        Map<String, Object> opus = Map.of("type", "audio", "codec", "opus/48000/2", "flags", List.of("initialized", "send", "recv"),
                "streams", List.of());
        Map<String, Object> opusInjected = Map.of("type", "audio", "codec", "opus/48000/2",
                "flags", List.of("initialized", "send", "recv", "transcoding"), "streams", List.of());
        Map<String, Object> pcma = Map.of("type", "audio", "codec", "PCMA/8000", "streams", List.of());
        List<MediaStats> out = new ArrayList<>();
        out.add(QueryStats.from(Map.of("result", "ok", "tags", Map.of(
                "brtag", Map.of("medias", List.of(opus)), "imstag", Map.of("medias", List.of(opus)))), "brtag", null, null, null, null));
        out.add(QueryStats.from(Map.of("result", "ok", "tags", Map.of(
                "brtag", Map.of("medias", List.of(opusInjected)), "imstag", Map.of("medias", List.of(opus)))), "brtag", null, null, null, null));
        out.add(QueryStats.from(Map.of("result", "ok", "tags", Map.of(
                "brtag", Map.of("medias", List.of(opus)), "imstag", Map.of("medias", List.of(pcma)))), "brtag", null, null, null, null));
        assertFalse(out.get(0).transcoded(), "same codec, no flag: relayed");
        assertTrue(out.get(1).transcoded(), "inject-DTMF: the browser's stream runs through the codec engine");
        assertTrue(out.get(2).transcoded(), "Opus toward IMS as PCMA");
    }

    @Test
    void audioOnlyQueryHasNoVideo() {
        Map<String, Object> reply = Map.of("result", "ok", "tags", Map.of(
                "brtag", Map.of("medias", List.of(Map.of("type", "audio", "streams", List.of())))));
        List<MediaStats> out = new ArrayList<>();
        out.add(QueryStats.from(reply, "brtag", null, null, null, null));
        assertNull(out.get(0).video());
    }
}
