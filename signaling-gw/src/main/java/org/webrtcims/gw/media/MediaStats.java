package org.webrtcims.gw.media;

/**
 * Media counters of one call as rtpengine saw them. "ToIms" counts what rtpengine received from the
 * browser (and relays toward IMS); "ToBrowser" counts what it received from the IMS side. The totals
 * cover every m-line; {@code video} (null without a video m-line) repeats them for the video m-line alone.
 * Codecs are "name/clockrate" (e.g. "opus/48000"), null when not known yet. {@code transcoded}: rtpengine runs
 * some of the call's media through its codec engine (decode + re-encode), read from its query: a media flagged
 * "transcoding" (codec change, or inject-DTMF) or legs whose reported codecs differ; false = pure relaying.
 */
public record MediaStats(String codecBrowser, String codecIms, long packetsToIms, long packetsToBrowser,
                         long bytesToIms, long bytesToBrowser, Video video, boolean transcoded) {
    /** The video m-line's share: codecs per leg ("VP8/90000") and RTP packets per direction. */
    public record Video(String codecBrowser, String codecIms, long packetsToIms, long packetsToBrowser) {
    }

    /** An audio-only call. */
    public MediaStats(String codecBrowser, String codecIms, long packetsToIms, long packetsToBrowser,
                      long bytesToIms, long bytesToBrowser, boolean transcoded) {
        this(codecBrowser, codecIms, packetsToIms, packetsToBrowser, bytesToIms, bytesToBrowser, null, transcoded);
    }

    /** An audio-only call relayed without transcoding. */
    public MediaStats(String codecBrowser, String codecIms, long packetsToIms, long packetsToBrowser,
                      long bytesToIms, long bytesToBrowser) {
        this(codecBrowser, codecIms, packetsToIms, packetsToBrowser, bytesToIms, bytesToBrowser, null, false);
    }
}
