package org.webrtcims.gw.sdp;

import java.util.List;

/** Whether a new SDP asks the peer for anything different from the last one it got. */
public final class MediaChange {
    private MediaChange() { }

    /**
     * True when {@code after} differs from {@code before} in more than its o= line (whose version a
     * new offer bumps) and the RFC 3312 status lines: a browser re-offer that leaves the IMS-side SDP
     * like this (an ICE restart, a DTLS-only change) needs no re-INVITE.
     */
    public static boolean changes(String before, String after) {
        if (before == null || after == null) return true;
        return !significant(before).equals(significant(after));
    }

    private static List<String> significant(String sdp) {
        return sdp.lines().map(String::strip).filter(l -> !l.isEmpty())
                .filter(l -> !l.startsWith("o=") && !l.startsWith("a=curr:") && !l.startsWith("a=des:")
                        && !l.startsWith("a=conf:"))
                .toList();
    }
}
