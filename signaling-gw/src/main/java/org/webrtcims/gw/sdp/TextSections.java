package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.List;

/**
 * Real-time text in the SDPs the gateway joins (issue #25, RFC 8865 ↔ RFC 4103): on the browser side the T.140 data
 * channel, an `a=dcmap` line of the data-channel section with `subprotocol="t140"` (RFC 8865 §4.2); on the IMS side the
 * `m=text … RTP/AVP <red> <t140>` section (RFC 4103 §6) that the data-channel endpoint's `text-offer` produces and
 * the IMS answer returns. Pure text work, no state.
 */
public final class TextSections {
    /** The RFC 8865 subprotocol of a T.140 data channel. */
    public static final String T140 = "t140";

    /** An SDP with its first `m=text` section taken out: {@code rest} and that section's lines (CRLF each). */
    public record Split(String rest, String section) {
        /** The section's port is 0: its sender rejects (answer) or disables (offer) text. */
        public boolean rejected() {
            String[] f = section.lines().findFirst().orElse("").split(" +");
            return f.length < 2 || f[1].split("/")[0].equals("0");
        }
    }

    private TextSections() { }

    /** The stream id of the first `a=dcmap` line of a data-channel section whose subprotocol is "t140", or null. */
    public static Integer t140Channel(String dataChannelSection) {
        for (Integer id : DataChannelSections.dcmapIds(dataChannelSection)) {
            if (isT140(dcmapLine(dataChannelSection, id))) return id;
        }
        return null;
    }

    /** Whether the section's `a=dcmap` lines are all T.140 channels (at least one): the IMS side then needs no m=application. */
    public static boolean onlyT140(String dataChannelSection) {
        List<Integer> ids = DataChannelSections.dcmapIds(dataChannelSection);
        return !ids.isEmpty() && ids.stream().allMatch(id -> isT140(dcmapLine(dataChannelSection, id)));
    }

    /** The m-line index of the SDP's first `m=text` section, -1 without one. */
    public static int index(String sdp) {
        List<List<String>> media = SdpLines.sections(SdpLines.stripped(sdp)).media();
        for (int m = 0; m < media.size(); m++) if (media.get(m).get(0).startsWith("m=text ")) return m;
        return -1;
    }

    /** The SDP split around its first `m=text` section, or null when it has none. */
    public static Split split(String sdp) {
        SdpLines.Sections all = SdpLines.sections(SdpLines.stripped(sdp));
        List<String> rest = new ArrayList<>(all.session());
        List<String> section = null;
        for (List<String> media : all.media()) {
            if (section == null && media.get(0).startsWith("m=text ")) section = media;
            else rest.addAll(media);
        }
        return section == null ? null : new Split(SdpLines.join(rest), SdpLines.join(section));
    }

    /** The media section of the endpoint's `text-offer` SDP (its lines from the m=text line on). */
    public static String sectionOf(String endpointSdp) {
        Split s = split(endpointSdp);
        if (s == null) throw new IllegalArgumentException("the data-channel endpoint's text SDP has no m=text line");
        return s.section();
    }

    /** The SDP with {@code section} as its last m-line. */
    public static String append(String sdp, String section) {
        List<String> out = new ArrayList<>(SdpLines.stripped(sdp));
        out.addAll(SdpLines.stripped(section));
        return SdpLines.join(out);
    }

    /** A rejected text section (port 0, RFC 3264 §6) in place of {@code section}: its m= line alone. */
    public static String rejected(String section) {
        String[] f = SdpLines.stripped(section).get(0).split(" +");
        if (f.length > 1) f[1] = "0";
        return SdpLines.join(List.of(String.join(" ", f)));
    }

    private static String dcmapLine(String section, int id) {
        for (String l : SdpLines.stripped(section)) {
            if (l.startsWith("a=dcmap:" + id + " ") || l.equals("a=dcmap:" + id)) return l;
        }
        return "";
    }

    /** RFC 8864 §5.1.1: `subprotocol=` with a quoted (possibly %-escaped) value; case matters not for "t140". */
    private static boolean isT140(String dcmapLine) {
        int sp = dcmapLine.indexOf(' ');
        if (sp < 0) return false;
        for (String opt : dcmapLine.substring(sp + 1).split(";")) {
            int eq = opt.indexOf('=');
            if (eq < 0 || !opt.substring(0, eq).trim().equals("subprotocol")) continue;
            String v = opt.substring(eq + 1).trim();
            if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) v = v.substring(1, v.length() - 1);
            return v.equalsIgnoreCase(T140);
        }
        return false;
    }
}
