package org.webrtcims.gw.sdp;

import java.util.stream.Collectors;

/** Applies {@link ImsAttributePolicy}'s attribute list to an SDP going toward IMS. */
public final class ImsSdpFilter {
    private ImsSdpFilter() { }

    public static String toIms(String sdp) {
        if (sdp == null) return null;
        String eol = sdp.contains("\r\n") ? "\r\n" : "\n";
        return sdp.lines().filter(l -> !ImsAttributePolicy.browserOnlyLine(l)).collect(Collectors.joining(eol)) + eol;
    }
}
