package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The RFC 3312 / RFC 4032 "qos" precondition lines (segmented status: local/remote) of an SDP, as
 * TS 24.229 §6.1.2 uses them. The gateway writes them on the IMS leg; rtpengine never sees them.
 */
public final class QosPreconditions {
    /** What the gateway states for one media line. */
    public record Status(String localCurrent, String remoteCurrent, String remoteStrength, boolean confirmRemote) { }

    private static final Pattern QOS_LINE = Pattern.compile("^a=(curr|des|conf):qos .*$");
    private static final Pattern PEER_LOCAL_CURR = Pattern.compile("(?m)^a=curr:qos local (none|send|recv|sendrecv)\\s*$");
    private static final Pattern PEER_CONF = Pattern.compile("(?m)^a=conf:qos remote (none|send|recv|sendrecv)\\s*$");
    private static final Pattern ORIGIN = Pattern.compile("(?m)^(o=\\S+ \\S+ )(\\d+)( .*)$");
    private static final Pattern DISABLED_M = Pattern.compile("m=\\S+ 0 .*");

    private QosPreconditions() { }

    /** True when the SDP carries precondition lines (the peer takes part in RFC 3312). */
    public static boolean present(String sdp) {
        return sdp != null && sdp.contains("a=des:qos");
    }

    /** The peer's own (local) current status, i.e. our remote segment: none|send|recv|sendrecv. */
    public static String peerLocalStatus(String sdp) {
        Matcher m = PEER_LOCAL_CURR.matcher(sdp == null ? "" : sdp);
        return m.find() ? m.group(1) : "none";
    }

    /** True when the peer asks to be told when our segment's resources are ready (a=conf:qos remote). */
    public static boolean peerWantsConfirmation(String sdp) {
        return sdp != null && PEER_CONF.matcher(sdp).find();
    }

    /** Replaces the qos lines of every audio/video media section with {@code status} (after each such section's last line). */
    public static String withStatus(String sdp, Status status) {
        List<String> kept = SdpLines.of(sdp).stream().filter(l -> !l.isEmpty() && !QOS_LINE.matcher(l).matches()).toList();
        SdpLines.Sections sections = SdpLines.sections(kept);
        List<String> out = new ArrayList<>(sections.session());
        for (List<String> media : sections.media()) {
            out.addAll(media);
            if (isAv(media.get(0))) out.addAll(lines(status));
        }
        return SdpLines.join(out, SdpLines.eol(sdp));
    }

    /** An audio or video m= line that is not disabled (port 0). */
    private static boolean isAv(String mLine) {
        return (mLine.startsWith("m=audio") || mLine.startsWith("m=video")) && !DISABLED_M.matcher(mLine).matches();
    }

    private static List<String> lines(Status s) {
        List<String> l = new ArrayList<>(List.of(
                "a=curr:qos local " + s.localCurrent(),
                "a=curr:qos remote " + s.remoteCurrent(),
                "a=des:qos mandatory local sendrecv",
                "a=des:qos " + s.remoteStrength() + " remote sendrecv"));
        if (s.confirmRemote()) l.add("a=conf:qos remote sendrecv");
        return l;
    }

    /** A new version of the same session (RFC 3264 §8): o= version + 1. */
    public static String nextVersion(String sdp) {
        Matcher m = ORIGIN.matcher(sdp);
        if (!m.find()) return sdp;
        long v = Long.parseLong(m.group(2)) + 1;
        return m.replaceFirst(Matcher.quoteReplacement(m.group(1) + v + m.group(3)));
    }
}
