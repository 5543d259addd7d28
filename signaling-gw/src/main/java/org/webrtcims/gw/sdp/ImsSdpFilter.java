package org.webrtcims.gw.sdp;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Removes the browser-only lines rtpengine 10.5 leaves in the SDP it writes for the IMS leg (it has no
 * attribute manipulation: `sdp-attr` is an unknown key there). TS 23.334 §5.20 / TS 23.228 Annex U:
 * the IMS leg is plain RTP/AVP, so no BUNDLE grouping, no RTP header extensions, no RTCP feedback, no
 * WebRTC stream identification.
 */
public final class ImsSdpFilter {
    /** Attribute names (without "a=") that only mean something on a WebRTC leg. */
    static final List<String> BROWSER_ONLY = List.of(
            "group", "msid-semantic", "extmap-allow-mixed", "extmap", "msid", "ssrc", "ssrc-group", "mid",
            "rtcp-fb", "rtcp-rsize", "ice-options", "end-of-candidates");

    private ImsSdpFilter() { }

    public static String toIms(String sdp) {
        if (sdp == null) return null;
        String eol = sdp.contains("\r\n") ? "\r\n" : "\n";
        return sdp.lines().filter(l -> !browserOnly(l)).collect(Collectors.joining(eol)) + eol;
    }

    private static boolean browserOnly(String line) {
        if (!line.startsWith("a=")) return false;
        int end = line.length();
        for (int i = 2; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (ch == ':' || ch == ' ') {
                end = i;
                break;
            }
        }
        return BROWSER_ONLY.contains(line.substring(2, end));
    }
}
