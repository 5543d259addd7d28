package org.webrtcims.gw.sdp;

import java.util.List;

/**
 * The one "toward IMS" policy: what of the browser's WebRTC SDP never reaches the IMS leg. TS 23.334 §5.20 /
 * TS 23.228 Annex U: the IMS leg is plain RTP/AVP as a TS 26.114 MTSI client expects. Two lists, one reason:
 * <ul>
 *   <li>{@link #BROWSER_ONLY_ATTRIBUTES}: SDP attribute lines rtpengine 10.5 leaves in the SDP it writes for the
 *       IMS leg (it has no attribute manipulation: `sdp-attr` is an unknown key there); {@link ImsSdpFilter}
 *       removes them from every SDP sent toward IMS;</li>
 *   <li>{@link #BROWSER_ONLY_FORMATS}: payload formats (encoding names) taken out of every browser offer before
 *       rtpengine sees it ({@link BrowserOnlyFormats}), so they are never offered to IMS nor negotiated.</li>
 * </ul>
 */
public final class ImsAttributePolicy {
    /**
     * Attribute names (without "a=") that only mean something on a WebRTC leg: BUNDLE grouping and mid, RTP
     * header extensions, RTCP feedback and reduced-size RTCP, WebRTC stream identification (msid, ssrc), trickle ICE.
     */
    public static final List<String> BROWSER_ONLY_ATTRIBUTES = List.of(
            "group", "msid-semantic", "extmap-allow-mixed", "extmap", "msid", "ssrc", "ssrc-group", "mid",
            "rtcp-fb", "rtcp-rsize", "ice-options", "end-of-candidates");

    /**
     * Browser-only payload formats: rtx (RFC 4588) needs RTCP NACK feedback (AVPF) and a=ssrc-group:FID, which the
     * RTP/AVP IMS leg has not; red (RFC 2198) and ulpfec / flexfec (RFC 5109, RFC 8627) are WebRTC's loss
     * protection, not in TS 26.114's MTSI codec set. Audio red/48000 (Opus RED) goes too. rtpengine then answers
     * the browser without them.
     */
    public static final List<String> BROWSER_ONLY_FORMATS = List.of("rtx", "red", "ulpfec", "flexfec-03");

    private ImsAttributePolicy() { }

    /** An "a=..." line whose attribute is in {@link #BROWSER_ONLY_ATTRIBUTES}. */
    public static boolean browserOnlyLine(String line) {
        if (!line.startsWith("a=")) return false;
        int end = line.length();
        for (int i = 2; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (ch == ':' || ch == ' ') {
                end = i;
                break;
            }
        }
        return BROWSER_ONLY_ATTRIBUTES.contains(line.substring(2, end));
    }
}
