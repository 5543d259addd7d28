package org.webrtcims.gw.sdp;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The one line and section splitter of sdp/. RFC 8866 §5 (RFC 4566 §5 before it): an SDP is a series of
 * `<type>=<value>` lines, each ended by CRLF, and a parser "SHOULD be tolerant and also accept records terminated
 * with a single newline character"; the session-level part runs up to the first `m=` line, and each media
 * description runs from its `m=` line up to the next one or the end. The helpers of this package read and write
 * SDP through it; an SDP they write keeps the line break of the one they read ({@link #eol}).
 */
public final class SdpLines {
    /** A line break: CRLF, or LF alone (RFC 8866 §5). Compiled once: String.split compiles its regex on every call (issue #26). */
    private static final Pattern EOL = Pattern.compile("\r?\n");

    /** An SDP cut at its m= lines: the session-level lines, then one list per media description (its m= line first). */
    public record Sections(List<String> session, List<List<String>> media) { }

    private SdpLines() { }

    /**
     * The SDP's lines as written, without their line breaks: nothing stripped, an empty line inside kept, none
     * after the last break. Empty for null.
     */
    public static List<String> of(String sdp) {
        return sdp == null ? List.of() : List.of(EOL.split(sdp));
    }

    /** The SDP's lines with the white space around each taken off and empty lines left out. Empty for null. */
    public static List<String> stripped(String sdp) {
        return sdp == null ? List.of() : sdp.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    /** The lines cut at their m= lines (RFC 8866 §5: a media description runs from its m= line to the next). */
    public static Sections sections(List<String> lines) {
        List<String> session = new ArrayList<>();
        List<List<String>> media = new ArrayList<>();
        List<String> current = session;
        for (String l : lines) {
            if (l.startsWith("m=")) {
                current = new ArrayList<>();
                media.add(current);
            }
            current.add(l);
        }
        return new Sections(session, media);
    }

    /** The line break the SDP uses: CRLF when it has one, else LF. */
    public static String eol(String sdp) {
        return sdp.contains("\r\n") ? "\r\n" : "\n";
    }

    /** The lines as an SDP, each ended by {@code eol}; "" for none. */
    public static String join(List<String> lines, String eol) {
        return lines.isEmpty() ? "" : String.join(eol, lines) + eol;
    }

    /** The lines as an SDP, each ended by CRLF (RFC 8866 §5); "" for none. */
    public static String join(List<String> lines) {
        return join(lines, "\r\n");
    }
}
