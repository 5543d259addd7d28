package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.List;

/**
 * The session-level `a=ice-lite` attribute (RFC 8839 §5.3: the agent is a lite implementation, RFC 8445 §2.5), and what
 * it decides (RFC 8445 §6.1.1): toward a lite agent the full agent is controlling; between two full agents the
 * offerer is. Pure text work, no state.
 */
public final class IceLiteAttribute {
    static final String LINE = "a=ice-lite";

    private IceLiteAttribute() {}

    /** Whether the SDP says its agent is ICE-lite (a session-level `a=ice-lite`, before the first m= line). */
    public static boolean declared(String sdp) {
        for (String l : SdpLines.stripped(sdp)) {
            if (l.startsWith("m=")) return false;
            if (l.equals(LINE)) return true;
        }
        return false;
    }

    /** The SDP with a session-level `a=ice-lite`, added before the first m= line when missing. */
    public static String added(String sdp) {
        List<String> out = new ArrayList<>();
        boolean session = true;
        boolean has = false;
        for (String l : SdpLines.stripped(sdp)) {
            if (session && l.startsWith("m=")) {
                if (!has) out.add(LINE);
                session = false;
            }
            if (session && l.equals(LINE)) has = true;
            out.add(l);
        }
        if (session && !has) out.add(LINE);
        return SdpLines.join(out);
    }

    /**
     * The SDP without its session-level `a=ice-lite` (the media sections unchanged; RFC 8839 allows the attribute at
     * session level only, JSEP §5.8), or the same string when it has none.
     */
    public static String removed(String sdp) {
        if (!declared(sdp)) return sdp;
        List<String> out = new ArrayList<>();
        boolean session = true;
        for (String l : SdpLines.stripped(sdp)) {
            if (l.startsWith("m=")) session = false;
            if (session && l.equals(LINE)) continue;
            out.add(l);
        }
        return SdpLines.join(out);
    }
}
