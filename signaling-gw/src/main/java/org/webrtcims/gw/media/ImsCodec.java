package org.webrtcims.gw.media;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * A codec the browser may ask the gateway to force on the IMS leg (`call {imsCodec}`); rtpengine then
 * transcodes the browser's Opus to it. Only codecs that rtpengine 10.5.3.5 on the lab machines can both
 * decode and encode are listed (`rtpengine --codecs`, docs/media.md). AMR and AMR-WB need the
 * libavcodec-extra59 build (opencore-amrnb, vo-amrwbenc encoders); the stock libavcodec59 only decodes them.
 */
public enum ImsCodec {
    PCMA("PCMA", "PCMA/8000/1/64000"),
    PCMU("PCMU", "PCMU/8000/1/64000"),
    G722("G722", "G722/8000/1/64000"),
    AMR_WB("AMR-WB", "AMR-WB/16000/1/12650"),
    AMR("AMR", "AMR/8000/1/12200");

    /** The name on the wire (API) and in SDP a=rtpmap. */
    public final String wire;
    /**
     * rtpengine `transcode` spec. The explicit channels/bitrate matter: with a bare name, rtpengine 10.5
     * restores the browser's own copy of the codec (stripped or masked) and answers the browser with it
     * (pass-through); with a full spec it inserts a new transcoded instance and the browser keeps Opus.
     */
    final String transcodeSpec;

    ImsCodec(String wire, String transcodeSpec) {
        this.wire = wire;
        this.transcodeSpec = transcodeSpec;
    }

    /** The codec for an API value (case-insensitive), or IllegalArgumentException naming the valid ones. */
    public static ImsCodec parse(String value) {
        for (ImsCodec c : values()) {
            if (c.wire.equalsIgnoreCase(value == null ? "" : value.trim())) {
                return c;
            }
        }
        throw new IllegalArgumentException("imsCodec '" + value + "' is not one of " + names());
    }

    static String names() {
        return Arrays.stream(values()).map(c -> c.wire).collect(Collectors.joining(", "));
    }
}
