package org.webrtcims.gw.sdp;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** DTLS roles from `a=setup` (RFC 4145, RFC 5763). */
public final class DtlsRole {
    private static final Pattern SETUP = Pattern.compile("(?m)^a=setup:(\\w+)\\s*$");

    private DtlsRole() { }

    /**
     * The role the other side takes after this SDP answer: `passive` when the answer is `active`, or
     * has no a=setup (RFC 4145 §4.1: the answerer's default is active), and `active` when it is `passive`.
     */
    public static String oppositeOf(String answerSdp) {
        Matcher m = SETUP.matcher(answerSdp == null ? "" : answerSdp);
        String role = m.find() ? m.group(1).toLowerCase() : "active";
        return role.equals("passive") ? "active" : "passive";
    }
}
