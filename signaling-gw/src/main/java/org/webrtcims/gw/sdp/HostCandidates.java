package org.webrtcims.gw.sdp;

import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The addresses an agent's host candidates name (RFC 8839 §5.1: `a=candidate:<foundation> <component-id> <transport>
 * <priority> <connection-address> <port> typ host ...`; the connection-address is an IP address or, at a browser's
 * default privacy settings, an mDNS name, one per interface address). How many there are says how many interfaces
 * the agent gathered on: a browser with one address sends its checks from that one, a browser with several (a second
 * interface, a VPN) may send them from an address the far end cannot answer. Pure text work, no state.
 */
public final class HostCandidates {
    /**
     * A candidate line of any type (RFC 8839 §5.1), the grammar sdp/ reads candidates by: group 1 the
     * connection-address, group 2 the candidate type. {@link MdnsSdp} reads its addresses with it too.
     */
    static final Pattern CANDIDATE = Pattern.compile("^a=candidate:\\S+ \\d+ \\S+ \\d+ (\\S+) \\d+ typ (\\S*).*$");

    private HostCandidates() { }

    /** The distinct connection-addresses of the SDP's host candidates, in order (names lower-cased); empty for none or null. */
    public static Set<String> addresses(String sdp) {
        Set<String> out = new LinkedHashSet<>();
        for (String l : SdpLines.stripped(sdp)) {
            if (!l.startsWith("a=candidate:")) continue;
            Matcher c = CANDIDATE.matcher(l);
            if (c.matches() && c.group(2).equalsIgnoreCase("host")) out.add(c.group(1).toLowerCase(Locale.ROOT));
        }
        return out;
    }
}
