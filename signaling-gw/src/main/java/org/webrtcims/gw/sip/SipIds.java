package org.webrtcims.gw.sip;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Random tags for From/To headers. */
public final class SipIds {
    private static final SecureRandom RANDOM = new SecureRandom();

    private SipIds() { }

    public static String tag() {
        byte[] b = new byte[6];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
