package org.webrtcims.gw.call;

import java.util.regex.Pattern;

/**
 * A browser's `dtmf {callId, digits, durationMs?}`, validated: the 16 DTMF events of RFC 4733 §3.2
 * (0-9 * # A-D), at most 32 per message, each 40..2000 ms (default 100). rtpengine 10.5 plays at least
 * 100 ms per digit, so shorter values come out as 100 ms (docs/media.md "DTMF").
 */
public record DtmfRequest(String digits, int durationMs) {
    public static final int DEFAULT_DURATION_MS = 100;
    public static final int MIN_DURATION_MS = 40;
    public static final int MAX_DURATION_MS = 2000;
    private static final Pattern DIGITS = Pattern.compile("[0-9*#A-D]{1,32}");

    /** durationMs null = the default; anything invalid is a `bad-message`. */
    public static DtmfRequest of(String digits, Integer durationMs) {
        if (digits == null || !DIGITS.matcher(digits).matches()) {
            throw new CallFailure("bad-message", "'digits' must be 1 to 32 of 0-9 * # A-D, got "
                    + (digits == null ? "nothing" : "'" + shorten(digits) + "'"));
        }
        int d = durationMs == null ? DEFAULT_DURATION_MS : durationMs;
        if (d < MIN_DURATION_MS || d > MAX_DURATION_MS) {
            throw new CallFailure("bad-message", "'durationMs' must be " + MIN_DURATION_MS + ".." + MAX_DURATION_MS
                    + ", got " + d);
        }
        return new DtmfRequest(digits, d);
    }

    private static String shorten(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }
}
