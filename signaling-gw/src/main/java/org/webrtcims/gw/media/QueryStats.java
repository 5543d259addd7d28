package org.webrtcims.gw.media;

import org.webrtcims.gw.sdp.SdpCodec;
import java.util.List;
import java.util.Map;

/**
 * Reads per-direction counters out of an rtpengine 10.5 query (or delete) reply.
 * Each tag's streams count the packets rtpengine RECEIVED from that party, so the browser tag's
 * streams are traffic toward IMS and every other tag's streams are traffic toward the browser.
 * Streams flagged only "RTCP" are skipped; with rtcp-mux (browser leg) RTP and RTCP share one
 * stream and the reply cannot tell them apart, so muxed RTCP is included there.
 * Transcoding: rtpengine 10.5 flags a media "transcoding" when its codec engine handles it (checked: set
 * with a codec change and with inject-DTMF, absent on a pure relay); the per-leg codecs it reports are
 * compared too.
 */
final class QueryStats {
    private QueryStats() {
    }

    /** Returns null when the reply carries no per-tag statistics. */
    static MediaStats from(Map<String, Object> reply, String browserTag,
                           String sdpCodecBrowser, String sdpCodecIms) {
        return from(reply, browserTag, sdpCodecBrowser, sdpCodecIms, null, null);
    }

    /** As above; the video SDP codecs stand in until rtpengine reports one (null = no video negotiated). */
    static MediaStats from(Map<String, Object> reply, String browserTag, String sdpCodecBrowser, String sdpCodecIms,
                           String sdpVideoBrowser, String sdpVideoIms) {
        if (!(reply.get("tags") instanceof Map<?, ?> tags)) {
            return null;
        }
        Counter toIms = new Counter();
        Counter toBrowser = new Counter();
        for (Map.Entry<?, ?> e : tags.entrySet()) {
            if (e.getValue() instanceof Map<?, ?> tag) {
                (browserTag != null && browserTag.equals(e.getKey()) ? toIms : toBrowser).add(tag);
            }
        }
        MediaStats.Video video = null;
        if (toIms.videoSeen || toBrowser.videoSeen || sdpVideoBrowser != null || sdpVideoIms != null) {
            video = new MediaStats.Video(
                    toIms.videoCodec != null ? toIms.videoCodec : sdpVideoBrowser,
                    toBrowser.videoCodec != null ? toBrowser.videoCodec : sdpVideoIms,
                    toIms.videoPackets, toBrowser.videoPackets);
        }
        boolean transcoded = toIms.transcoding || toBrowser.transcoding
                || differ(toIms.codec, toBrowser.codec) || differ(toIms.videoCodec, toBrowser.videoCodec);
        return new MediaStats(
                toIms.codec != null ? toIms.codec : sdpCodecBrowser,
                toBrowser.codec != null ? toBrowser.codec : sdpCodecIms,
                toIms.packets, toBrowser.packets, toIms.bytes, toBrowser.bytes, video, transcoded);
    }

    /** Two codecs rtpengine reported (both known) that are not the same. */
    private static boolean differ(String a, String b) {
        return a != null && b != null && !a.equalsIgnoreCase(b);
    }

    private static final class Counter {
        long packets;
        long bytes;
        /** rtpengine reports "codec" per media once it has seen RTP with a single payload type. */
        String codec;
        boolean videoSeen;
        long videoPackets;
        String videoCodec;
        /** Some media of this party carries rtpengine's "transcoding" flag. */
        boolean transcoding;

        void add(Map<?, ?> tag) {
            for (Object media : list(tag.get("medias"))) {
                if (!(media instanceof Map<?, ?> m)) {
                    continue;
                }
                boolean isVideo = "video".equals(m.get("type"));
                if (m.get("codec") instanceof String c) {
                    if (codec == null && "audio".equals(m.get("type"))) codec = SdpCodec.normalize(c);
                    if (videoCodec == null && isVideo) videoCodec = SdpCodec.normalize(c);
                }
                videoSeen |= isVideo;
                transcoding |= list(m.get("flags")).contains("transcoding");
                for (Object stream : list(m.get("streams"))) {
                    if (stream instanceof Map<?, ?> s && list(s.get("flags")).contains("RTP")
                            && s.get("stats") instanceof Map<?, ?> stats) {
                        packets += number(stats.get("packets"));
                        bytes += number(stats.get("bytes"));
                        if (isVideo) videoPackets += number(stats.get("packets"));
                    }
                }
            }
        }
    }

    private static List<?> list(Object o) {
        return o instanceof List<?> l ? l : List.of();
    }

    private static long number(Object o) {
        return o instanceof Number n ? n.longValue() : 0L;
    }
}
