package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.List;

/**
 * Makes RFC 4145 §4.1's default DTLS role explicit in a browser SDP that has a fingerprint but no
 * a=setup: `active` in an offer, `passive` in an answer. rtpengine 10.5 drops DTLS from its answer
 * (no fingerprint) when the offer lacks a=setup, so the default has to be written out for it.
 */
public final class DtlsSetupDefaults {
    private DtlsSetupDefaults() { }

    public static String explicit(String sdp, boolean offer) {
        if (sdp == null || !sdp.contains("a=fingerprint:") || sdp.contains("a=setup:")) return sdp;
        String setup = "a=setup:" + (offer ? "active" : "passive");
        SdpLines.Sections sections = SdpLines.sections(SdpLines.of(sdp));
        List<String> out = new ArrayList<>(sections.session());
        for (List<String> media : sections.media()) {
            out.addAll(media);
            out.add(setup);
        }
        return SdpLines.join(out, SdpLines.eol(sdp));
    }
}
