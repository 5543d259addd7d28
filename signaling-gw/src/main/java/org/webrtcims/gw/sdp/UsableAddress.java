package org.webrtcims.gw.sdp;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Whether a browser SDP leaves rtpengine a way to reach the browser: every active media section
 * (port not 0) needs either ICE candidates (host, mDNS, server- or peer-reflexive: rtpengine learns the
 * browser's address from ICE) or a real connection address. A section with {@code c=IN IP4 0.0.0.0}
 * (or none) and no candidate at all — e.g. a browser that gathered nothing, or an SDP whose candidates
 * were stripped — can never carry media; the gateway refuses it with {@code no-usable-address}
 * instead of setting up a call that stays silent (docs/media.md).
 */
public final class UsableAddress {
    /** Compiled once: String.split compiles its regex on every call (issue #26). */
    private static final Pattern WHITESPACE = Pattern.compile("\\s+");

    private UsableAddress() { }

    /** Null when every active section is reachable, else what is wrong (one line). */
    public static String problem(String sdp) {
        if (sdp == null || sdp.isBlank()) return "empty SDP";
        List<String> lines = sdp.lines().map(String::strip).toList();
        String sessionC = null;
        int i = 0;
        for (; i < lines.size() && !lines.get(i).startsWith("m="); i++) {
            if (lines.get(i).startsWith("c=")) sessionC = lines.get(i);
        }
        while (i < lines.size()) {
            String m = lines.get(i);
            String c = sessionC;
            boolean candidate = false;
            for (i++; i < lines.size() && !lines.get(i).startsWith("m="); i++) {
                String l = lines.get(i);
                if (l.startsWith("c=")) c = l;
                if (l.startsWith("a=candidate:")) candidate = true;
            }
            String[] parts = m.split(" ");
            if (parts.length > 1 && parts[1].equals("0")) continue; // rejected / disabled section
            if (!candidate && !usable(c)) {
                String kind = m.substring(2, m.indexOf(' ') > 2 ? m.indexOf(' ') : m.length());
                return "m=" + kind + " has no ICE candidate and no usable connection address (" + (c == null ? "no c= line" : c) + ")";
            }
        }
        return null;
    }

    private static boolean usable(String cLine) {
        if (cLine == null) return false;
        String[] p = WHITESPACE.split(cLine.substring(2).trim());
        if (p.length < 3) return false;
        String addr = p[2].split("/")[0];
        return !addr.equals("0.0.0.0") && !addr.equals("::") && !addr.endsWith(".local");
    }
}
