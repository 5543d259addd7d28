package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A browser SDP whose host candidates are mDNS names (`<uuid>.local`, Firefox at default privacy
 * settings; draft-ietf-mmusic-mdns-ice-candidates): its default address is `c=IN IP4 0.0.0.0` and its
 * `a=rtcp` names the `.local` host. rtpengine 10.5 reads the zero address as hold (it offers IMS
 * `c=IN IP4 0.0.0.0` + `a=sendonly`) and copies the unparsable `a=rtcp` line through to IMS.
 * Before rtpengine sees such an SDP, each zero `c=` gets the first IPv4 literal among the section's
 * candidates, else `fallback`, and `a=rtcp` lines that name a host instead of an address are dropped
 * (the browser multiplexes RTCP; rtpengine writes its own a=rtcp toward IMS). rtpengine still learns
 * where the browser is from ICE (peer-reflexive), never from this address.
 */
public final class MdnsSdp {
    private static final Pattern ZERO_C = Pattern.compile("^c=IN IP4 0\\.0\\.0\\.0$");
    private static final Pattern RTCP_HOST = Pattern.compile("^a=rtcp:\\d+ IN IP[46] (\\S+)$");
    private static final Pattern IPV4 = Pattern.compile("^\\d{1,3}(\\.\\d{1,3}){3}$");

    private MdnsSdp() { }

    /** The SDP with zero default addresses filled in and host-named a=rtcp lines removed; null stays null. */
    public static String forRtpengine(String sdp, String fallback) {
        if (sdp == null || (!sdp.contains("0.0.0.0") && !sdp.contains(".local"))) return sdp;
        String eol = sdp.contains("\r\n") ? "\r\n" : "\n";
        List<String> lines = sdp.lines().toList();
        List<String> out = new ArrayList<>(lines.size());
        // session-level c= (before the first m=) takes the first literal of the whole SDP
        int sectionStart = 0;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            if (l.startsWith("m=")) sectionStart = i;
            Matcher rtcp = RTCP_HOST.matcher(l);
            if (rtcp.matches() && !isAddress(rtcp.group(1))) continue;
            if (ZERO_C.matcher(l).matches()) {
                boolean session = !anyBefore(lines, i, "m=");
                String literal = firstLiteral(lines, session ? 0 : sectionStart, session);
                out.add("c=IN IP4 " + (literal != null ? literal : fallback));
                continue;
            }
            out.add(l);
        }
        return String.join(eol, out) + eol;
    }

    private static boolean anyBefore(List<String> lines, int end, String prefix) {
        for (int i = 0; i < end; i++) if (lines.get(i).startsWith(prefix)) return true;
        return false;
    }

    private static String firstLiteral(List<String> lines, int from, boolean wholeSdp) {
        for (int i = from; i < lines.size(); i++) {
            String l = lines.get(i);
            if (!wholeSdp && i > from && l.startsWith("m=")) break;
            Matcher c = HostCandidates.CANDIDATE.matcher(l);
            if (c.matches() && IPV4.matcher(c.group(1)).matches() && !c.group(1).equals("0.0.0.0")) return c.group(1);
        }
        return null;
    }

    private static boolean isAddress(String host) {
        return IPV4.matcher(host).matches() || host.contains(":");
    }
}
