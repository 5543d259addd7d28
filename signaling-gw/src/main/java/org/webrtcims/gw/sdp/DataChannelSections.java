package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The data-channel media section of an SDP (RFC 8841 `m=application … UDP/DTLS/SCTP webrtc-datachannel`, with its
 * RFC 8864 `a=dcmap`/`a=dcsa` lines; TS 26.114 §6.2.10 on the IMS leg): the gateway takes it out of an SDP before
 * rtpengine sees the rest (rtpengine has no SCTP), and puts the data-channel endpoint's section back in at the same
 * m-line index (RFC 3264 §6: an answer has the offer's m-lines in the offer's order). Pure text work, no state.
 */
public final class DataChannelSections {
    public static final String PROTOCOL = "UDP/DTLS/SCTP";
    public static final String FORMAT = "webrtc-datachannel";

    /**
     * An SDP split in two: {@code rest} without the data-channel section (and without its mid in a BUNDLE group),
     * {@code section} that section's lines (from its m= line on, each ending in CRLF), {@code index} its m-line index
     * in the whole SDP, {@code mid} its a=mid (null without one).
     */
    public record Split(String rest, String section, int index, String mid) {
        /** The section's port is 0: its sender rejects (answer) or disables (offer) the data channels. */
        public boolean rejected() { return port(section) == 0; }
    }

    private DataChannelSections() { }

    /** Whether the SDP has a data-channel section (an `m=application` line with the RFC 8841 protocol and format). */
    public static boolean has(String sdp) {
        return sdp != null && SdpLines.stripped(sdp).stream().anyMatch(DataChannelSections::isDataChannelLine);
    }

    /** The SDP split around its first data-channel section, or null when it has none. */
    public static Split split(String sdp) {
        if (!has(sdp)) return null;
        SdpLines.Sections all = SdpLines.sections(SdpLines.stripped(sdp));
        List<String> rest = new ArrayList<>(all.session());
        List<String> section = null;
        int index = -1;
        for (int i = 0; i < all.media().size(); i++) {
            List<String> media = all.media().get(i);
            if (section == null && isDataChannelLine(media.get(0))) {
                section = media;
                index = i;
            } else {
                rest.addAll(media);
            }
        }
        String mid = null;
        for (String l : section) if (l.startsWith("a=mid:")) mid = l.substring(6).trim();
        String restSdp = SdpLines.join(rest);
        if (mid != null) restSdp = withoutMidInBundle(restSdp, mid);
        return new Split(restSdp, SdpLines.join(section), index, mid);
    }

    /**
     * The media section of an SDP the data-channel endpoint produced (a whole SDP with one m=application): its lines
     * from the m= line on; {@code mid} non-null: that a=mid is given to it when it has none.
     */
    public static String sectionOf(String endpointSdp, String mid) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        boolean hasMid = false;
        for (String l : SdpLines.stripped(endpointSdp)) {
            if (l.startsWith("m=")) in = true;
            if (!in) continue;
            out.add(l);
            if (l.startsWith("a=mid:")) hasMid = true;
        }
        if (out.isEmpty()) throw new IllegalArgumentException("the data-channel endpoint's SDP has no m= line");
        if (mid != null && !hasMid) out.add(1, "a=mid:" + mid);
        return SdpLines.join(out);
    }

    /** The SDP with `section` inserted as its m-line number {@code index} (appended when it has fewer m-lines). */
    public static String merge(String sdp, String section, int index) {
        SdpLines.Sections all = SdpLines.sections(SdpLines.stripped(sdp));
        List<String> out = new ArrayList<>(all.session());
        for (int i = 0; i < all.media().size(); i++) {
            if (i == index) out.addAll(SdpLines.stripped(section));
            out.addAll(all.media().get(i));
        }
        if (index < 0 || index >= all.media().size()) out.addAll(SdpLines.stripped(section));
        return SdpLines.join(out);
    }

    /**
     * The SDP without `a=group:BUNDLE` lines: toward a browser once a data-channel section is in it, every m-line
     * keeps its own transport (rtpengine's and the endpoint's), as audio and video do (docs/media.md "BUNDLE"). A
     * group of the audio alone would not do: Chrome's re-offers put every m-line in one group, and it then takes
     * the data channel's mid as part of the established group, which the answer may not leave out (RFC 8843
     * §7.3.2 as Chrome applies it: "Answer cannot remove m= section … from already-established BUNDLE group").
     */
    public static String withoutBundle(String sdp) {
        return SdpLines.join(SdpLines.stripped(sdp).stream().filter(l -> !l.startsWith("a=group:BUNDLE")).toList());
    }

    /** A rejected data-channel section (port 0, RFC 3264 §6) in place of {@code section}: its m= line and a=mid only. */
    public static String rejected(String section) {
        List<String> out = new ArrayList<>();
        for (String l : SdpLines.stripped(section)) {
            if (l.startsWith("m=")) {
                String[] f = l.split(" +");
                if (f.length > 1) f[1] = "0";
                out.add(String.join(" ", f));
            } else if (l.startsWith("a=mid:")) {
                out.add(l);
            }
        }
        return SdpLines.join(out);
    }

    /** A mid not used by any m-line of the SDP: "dc", else "dc2", "dc3", … */
    public static String freeMid(String sdp) {
        List<String> mids = SdpLines.stripped(sdp).stream().filter(l -> l.startsWith("a=mid:")).map(l -> l.substring(6).trim()).toList();
        String mid = "dc";
        for (int n = 2; mids.contains(mid); n++) mid = "dc" + n;
        return mid;
    }

    /** The stream ids of the section's `a=dcmap` lines, in order. */
    public static List<Integer> dcmapIds(String section) {
        List<Integer> out = new ArrayList<>();
        for (String l : SdpLines.stripped(section)) {
            if (!l.startsWith("a=dcmap:")) continue;
            String id = l.substring(8).split("[ ;]", 2)[0];
            try {
                out.add(Integer.parseInt(id));
            } catch (NumberFormatException e) {
                // not a stream id: the endpoint refuses such a line with a reason of its own
            }
        }
        return out;
    }

    private static boolean isDataChannelLine(String l) {
        if (!l.startsWith("m=application ")) return false;
        String[] f = l.substring(2).split(" +");
        return f.length >= 4 && PROTOCOL.equals(f[2]) && FORMAT.equals(f[3]);
    }

    private static int port(String section) {
        for (String l : SdpLines.stripped(section)) {
            if (l.startsWith("m=")) {
                String[] f = l.split(" +");
                try {
                    return f.length > 1 ? Integer.parseInt(f[1].split("/")[0]) : 0;
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /** The BUNDLE group without {@code mid}; a group left empty goes. */
    private static String withoutMidInBundle(String sdp, String mid) {
        List<String> out = new ArrayList<>();
        for (String l : SdpLines.stripped(sdp)) {
            if (l.startsWith("a=group:BUNDLE")) {
                List<String> mids = new ArrayList<>(Arrays.asList(l.substring("a=group:BUNDLE".length()).trim().split(" +")));
                mids.removeIf(m -> m.isEmpty() || m.equals(mid));
                if (mids.isEmpty()) continue;
                l = "a=group:BUNDLE " + String.join(" ", mids);
            }
            out.add(l);
        }
        return SdpLines.join(out);
    }
}
