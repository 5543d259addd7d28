package org.webrtcims.gw.sdp;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** DTLS roles from `a=setup` (RFC 4145, RFC 5763). */
public final class DtlsRole {
    private static final Pattern SETUP = Pattern.compile("(?m)^a=setup:(\\w+)\\s*$");

    /** {@link #answering}'s answer to an `actpass` offer: either role will do, the relay's configuration chooses. */
    public static final String EITHER = "actpass";

    private DtlsRole() { }

    /**
     * rtpengine's role when it answers this browser offer (RFC 5763 §5): {@link #EITHER} for `actpass` (the relay's
     * configuration chooses: media/RtpEngineLegs, `lab.rtpengine.dtls-on-actpass`), `passive` for `active`, `active`
     * for `passive`, and `passive` when the offer has no a=setup (RFC 4145 §4.1: an offer's default is active).
     */
    public static String answering(String offerSdp) {
        Matcher m = SETUP.matcher(offerSdp == null ? "" : offerSdp);
        if (!m.find()) return "passive";
        return switch (m.group(1).toLowerCase()) {
            case "active" -> "passive";
            case "actpass" -> EITHER;
            default -> "active";
        };
    }

    /**
     * The role the other side takes after this SDP answer: `passive` when the answer is `active`, and
     * `active` when it is `passive` or has no a=setup (RFC 4145 §4.1: an answer's default is passive).
     */
    public static String oppositeOf(String answerSdp) {
        Matcher m = SETUP.matcher(answerSdp == null ? "" : answerSdp);
        String role = m.find() ? m.group(1).toLowerCase() : "passive";
        return role.equals("passive") ? "active" : "passive";
    }
}
