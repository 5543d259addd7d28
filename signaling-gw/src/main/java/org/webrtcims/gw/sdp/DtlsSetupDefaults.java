package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Makes RFC 4145 §4.1's default DTLS role explicit in a browser SDP that has a fingerprint but no
 * a=setup: `active` in an offer, `passive` in an answer. rtpengine 10.5 drops DTLS from its answer
 * (no fingerprint) when the offer lacks a=setup, so the default has to be written out for it.
 */
public final class DtlsSetupDefaults {
    /** A line break of an SDP, compiled once: String.split compiles its regex on every call (issue #26). */
    private static final Pattern EOL = Pattern.compile("\r?\n");

    private DtlsSetupDefaults() { }

    public static String explicit(String sdp, boolean offer) {
        if (sdp == null || !sdp.contains("a=fingerprint:") || sdp.contains("a=setup:")) return sdp;
        String eol = sdp.contains("\r\n") ? "\r\n" : "\n";
        String setup = "a=setup:" + (offer ? "active" : "passive");
        List<String> out = new ArrayList<>();
        boolean inMedia = false;
        for (String line : EOL.split(sdp)) {
            if (line.startsWith("m=")) {
                if (inMedia) out.add(setup);
                inMedia = true;
            }
            out.add(line);
        }
        if (inMedia) out.add(setup);
        return String.join(eol, out) + eol;
    }
}
