package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/**
 * BUNDLE (RFC 8843) on the browser leg with a relay that cannot demultiplex it: rtpengine 10.5 gives every
 * m-line its own port and ICE transport and never writes `a=group:BUNDLE`. A browser on the default
 * `balanced` policy then keeps one transport per m-line and media works; one that put several m-lines on a
 * single transport (`max-bundle`: only the first m-line has ICE candidates, or `a=bundle-only`) cannot
 * be served and is refused before anything is set up (docs/media.md "BUNDLE"). Toward IMS BUNDLE is never
 * offered (TS 23.228 Annex U; {@link ImsSdpFilter} drops the group line).
 */
public final class Bundle {
    /** Compiled once: String.split compiles its regex on every call (issue #26). */
    private static final Pattern SPACES = Pattern.compile(" +");

    private Bundle() { }

    /** The mids of the first `a=group:BUNDLE` line, in order; empty without one. */
    public static List<String> group(String sdp) {
        for (String line : SdpLines.stripped(sdp)) {
            if (line.startsWith("a=group:BUNDLE")) {
                String rest = line.substring("a=group:BUNDLE".length()).trim();
                return rest.isEmpty() ? List.of() : Arrays.asList(SPACES.split(rest));
            }
        }
        return List.of();
    }

    /**
     * Why the offer needs several m-lines on one transport (max-bundle, bundle-only), or null when every
     * m-line of its BUNDLE group brings its own transport (balanced) or there is no group of two or more.
     */
    public static String sharedTransport(String offer) {
        List<String> group = group(offer);
        if (group.size() < 2) return null;
        List<Section> inGroup = sections(offer).stream().filter(s -> s.mid != null && group.contains(s.mid)).toList();
        boolean anyCandidates = inGroup.stream().anyMatch(s -> s.candidates);
        for (Section s : inGroup) {
            if (s.bundleOnly || (anyCandidates && !s.candidates)) {
                return "the offer puts m-lines " + String.join(" ", group) + " on one transport (BUNDLE with "
                        + "bundlePolicy max-bundle or a=bundle-only); rtpengine 10.5 cannot demultiplex bundled "
                        + "media: use bundlePolicy 'balanced' (docs/media.md)";
            }
        }
        return null;
    }

    /**
     * A one-m-line BUNDLE group of the offer is kept in the answer (RFC 8843 §7.3.1: the answerer keeps the
     * m-lines it accepts in the group): a group of one needs no demultiplexing, and Chrome on max-bundle
     * refuses an answer that removes the m-line from its group. Any other answer is returned unchanged.
     */
    public static String answerKeepingSingleGroup(String offer, String answer) {
        List<String> group = group(offer);
        if (group.size() != 1 || !group(answer).isEmpty()) return answer;
        boolean accepted = sections(answer).stream().anyMatch(s -> group.get(0).equals(s.mid) && s.port != 0);
        return accepted ? withGroup(answer, group.get(0)) : answer;
    }

    /**
     * An offer toward the browser with exactly one active m-line gets a BUNDLE group of that m-line, so a
     * browser on max-bundle accepts it (Chrome: "max-bundle is used but no bundle group found"). Offers with
     * more m-lines stay unbundled: rtpengine 10.5 has one transport per m-line.
     */
    public static String offerWithSingleGroup(String offer) {
        if (!group(offer).isEmpty()) return offer;
        List<Section> active = sections(offer).stream().filter(s -> s.port != 0).toList();
        if (active.size() != 1 || sections(offer).size() != 1 || active.get(0).mid == null) return offer;
        return withGroup(offer, active.get(0).mid);
    }

    private static String withGroup(String sdp, String mid) {
        String eol = SdpLines.eol(sdp);
        int m = sdp.startsWith("m=") ? 0 : sdp.indexOf(eol + "m=");
        if (m < 0) return sdp;
        int at = m == 0 ? 0 : m + eol.length();
        return sdp.substring(0, at) + "a=group:BUNDLE " + mid + eol + sdp.substring(at);
    }

    private record Section(String mid, int port, boolean candidates, boolean bundleOnly) { }

    private static List<Section> sections(String sdp) {
        List<Section> out = new ArrayList<>();
        for (List<String> media : SdpLines.sections(SdpLines.stripped(sdp)).media()) {
            String[] f = SPACES.split(media.get(0).substring(2));
            String mid = null;
            boolean candidates = false;
            boolean bundleOnly = false;
            for (String line : media) {
                if (line.startsWith("a=mid:")) mid = line.substring(6).trim();
                else if (line.startsWith("a=candidate:")) candidates = true;
                else if (line.equals("a=bundle-only")) bundleOnly = true;
            }
            out.add(new Section(mid, f.length > 1 ? parsePort(f[1]) : 0, candidates, bundleOnly));
        }
        return out;
    }

    private static int parsePort(String field) {
        try {
            return Integer.parseInt(field.split("/")[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
