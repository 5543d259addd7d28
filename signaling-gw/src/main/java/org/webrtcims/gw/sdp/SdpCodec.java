package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** Extracts the negotiated codecs ("name/clockrate") from an SDP answer: the first real payload per kind. */
public final class SdpCodec {
    private static final Pattern SPACES = Pattern.compile(" +");

    /** RFC 3551 static payload types that an SDP may use without a=rtpmap. */
    private static final Map<String, String> STATIC = Map.of(
            "0", "PCMU/8000", "3", "GSM/8000", "4", "G723/8000", "8", "PCMA/8000",
            "9", "G722/8000", "18", "G729/8000");

    private SdpCodec() {
    }

    public static String firstAudioCodec(String sdp) {
        for (String codec : audioCodecs(sdp)) {
            // DTMF and comfort noise are never "the" codec of a call.
            if (!codec.startsWith("telephone-event/") && !codec.startsWith("CN/")) {
                return codec;
            }
        }
        return null;
    }

    /** The first codec of the first video m-line ("VP8/90000"), null without one. Video has no DTMF/CN. */
    public static String firstVideoCodec(String sdp) {
        List<String> codecs = codecs(sdp, "video");
        return codecs.isEmpty() ? null : codecs.get(0);
    }

    /** The clock rates of telephone-event in the first audio m-line ("48000", "8000"), in order, no duplicates. */
    public static List<String> telephoneEventRates(String sdp) {
        List<String> out = new ArrayList<>();
        for (String codec : audioCodecs(sdp)) {
            String[] parts = codec.split("/");
            if (parts[0].equalsIgnoreCase("telephone-event") && parts.length > 1 && !out.contains(parts[1])) out.add(parts[1]);
        }
        return out;
    }

    /** Encoding names of the first audio m-line, in offer order, without duplicates ("PCMA", "telephone-event"). */
    public static List<String> audioEncodings(String sdp) {
        return encodings(sdp, "audio");
    }

    /** Encoding names of the first m-line of that kind ("audio", "video"), in offer order, no duplicates. */
    public static List<String> encodings(String sdp, String kind) {
        List<String> out = new ArrayList<>();
        for (String codec : codecs(sdp, kind)) {
            String name = codec.split("/")[0];
            if (!out.contains(name)) {
                out.add(name);
            }
        }
        return out;
    }

    private static List<String> audioCodecs(String sdp) {
        return codecs(sdp, "audio");
    }

    /** The codecs ("PCMA/8000") of the first m-line of a kind, in its payload-type order; unknown types left out. */
    private static List<String> codecs(String sdp, String kind) {
        List<String> out = new ArrayList<>();
        for (List<String> section : SdpLines.sections(SdpLines.of(sdp)).media()) {
            if (!section.get(0).startsWith("m=" + kind + " ")) {
                continue;
            }
            String[] m = SPACES.split(section.get(0).trim());
            for (int f = 3; f < m.length; f++) {
                String codec = codecOf(m[f], section);
                if (codec != null) {
                    out.add(codec);
                }
            }
            break;
        }
        return out;
    }

    /** The codec of payload type {@code pt} in its media section: its a=rtpmap, else the static type's. */
    private static String codecOf(String pt, List<String> section) {
        String prefix = "a=rtpmap:" + pt + " ";
        for (String line : section) {
            if (line.startsWith(prefix)) {
                return normalize(line.substring(prefix.length()).trim());
            }
        }
        return STATIC.get(pt);
    }

    /** "opus/48000/2" -> "opus/48000": the channel count is not part of the reported codec name. */
    public static String normalize(String encoding) {
        if (encoding == null || encoding.isEmpty()) {
            return null;
        }
        String[] parts = encoding.split("/");
        return parts.length >= 2 ? parts[0] + "/" + parts[1] : parts[0];
    }
}
