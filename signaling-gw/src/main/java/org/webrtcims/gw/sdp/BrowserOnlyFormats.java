package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Takes the browser-only payload formats ({@link ImsAttributePolicy#BROWSER_ONLY_FORMATS}: rtx, red, ulpfec,
 * flexfec-03) out of a browser's offer before the relay sees it: from each audio and video m-line's format list, with
 * their a=rtpmap, a=fmtp and a=rtcp-fb lines. The relay then answers the browser without them and never offers them
 * to IMS.
 * <p>
 * Not rtpengine's ng `codec: {strip: [...]}`: in rtpengine 10.5 a strip marks the stripped format's clock rate as
 * changed, and on the next offer it adds a comfort-noise format at that rate (CN/48000 for Chrome's red/48000) toward
 * IMS "for transcoding". Until the IMS answer removes it again, rtpengine decodes and re-encodes the IMS side's Opus
 * toward the browser under an SSRC of its own: at every re-offer (hold, resume, ICE restart) the browser got one to
 * three packets from an SSRC it had never seen, and Chromium then sometimes kept that SSRC's receive stream and dropped
 * the call's real one for good (no audio after the re-offer; docs/media.md "Mid-call changes").
 */
public final class BrowserOnlyFormats {
    private static final Pattern SPACES = Pattern.compile(" +");
    private static final List<String> PER_FORMAT = List.of("a=rtpmap:", "a=fmtp:", "a=rtcp-fb:");

    private BrowserOnlyFormats() { }

    /** {@code sdp} without the browser-only formats of its audio and video sections; {@code sdp} itself when it has none. */
    public static String removed(String sdp) {
        if (sdp == null) return null;
        SdpLines.Sections sections = SdpLines.sections(SdpLines.of(sdp));
        List<String> out = new ArrayList<>(sections.session());
        boolean changed = false;
        for (List<String> section : sections.media()) {
            List<String> kept = withoutBrowserOnly(section);
            changed |= kept != section;
            out.addAll(kept);
        }
        return changed ? SdpLines.join(out, SdpLines.eol(sdp)) : sdp;
    }

    private static List<String> withoutBrowserOnly(List<String> section) {
        String mline = section.get(0);
        if (!mline.startsWith("m=audio ") && !mline.startsWith("m=video ")) return section;
        Set<String> drop = new HashSet<>();
        for (String line : section) {
            if (!line.startsWith("a=rtpmap:")) continue;
            int space = line.indexOf(' ');
            if (space < 0) continue;
            String encoding = line.substring(space + 1).split("/", 2)[0].trim();
            if (ImsAttributePolicy.BROWSER_ONLY_FORMATS.stream().anyMatch(encoding::equalsIgnoreCase)) {
                drop.add(line.substring("a=rtpmap:".length(), space));
            }
        }
        if (drop.isEmpty()) return section;
        String[] m = SPACES.split(mline);
        List<String> formats = new ArrayList<>();
        for (int k = 3; k < m.length; k++) if (!drop.contains(m[k])) formats.add(m[k]);
        if (m.length < 4 || formats.isEmpty()) return section; // nothing else offered: the relay decides
        List<String> out = new ArrayList<>(section.size());
        out.add(m[0] + " " + m[1] + " " + m[2] + " " + String.join(" ", formats));
        for (String line : section.subList(1, section.size())) if (!describes(line, drop)) out.add(line);
        return out;
    }

    /** An a=rtpmap, a=fmtp or a=rtcp-fb line of one of {@code formats}. */
    private static boolean describes(String line, Set<String> formats) {
        for (String prefix : PER_FORMAT) {
            if (!line.startsWith(prefix)) continue;
            int space = line.indexOf(' ', prefix.length());
            return formats.contains(line.substring(prefix.length(), space < 0 ? line.length() : space));
        }
        return false;
    }
}
