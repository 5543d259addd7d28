package org.webrtcims.gw.media;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.webrtcims.gw.sdp.SdpCodec;

/**
 * Per call, the codecs read from its SDP answers (each leg's first audio and video codec), from the answer to the
 * delete: QueryStats reports them while rtpengine has not seen RTP yet and names no codec itself.
 */
final class NegotiatedCodecs {
    private record Negotiated(String browser, String ims, String videoBrowser, String videoIms) {
    }

    private static final Negotiated NONE = new Negotiated(null, null, null, null);

    private final Map<String, Negotiated> byCall = new ConcurrentHashMap<>();

    /** The SDPs of an answer that went through rtpengine: the browser's leg and the IMS leg. */
    void remember(String callId, String browserSdp, String imsSdp) {
        byCall.put(callId, new Negotiated(SdpCodec.firstAudioCodec(browserSdp), SdpCodec.firstAudioCodec(imsSdp),
                SdpCodec.firstVideoCodec(browserSdp), SdpCodec.firstVideoCodec(imsSdp)));
    }

    void forget(String callId) {
        byCall.remove(callId);
    }

    /** The counters of a query or delete reply, or null when it carries none (QueryStats). */
    MediaStats statsOf(String callId, Map<String, Object> reply, String browserTag) {
        Negotiated n = byCall.getOrDefault(callId, NONE);
        return QueryStats.from(reply, browserTag, n.browser(), n.ims(), n.videoBrowser(), n.videoIms());
    }
}
