package org.webrtcims.gw.sdp;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The shared SDP line and section splitter: RFC 8866 §5 (RFC 4566 §5) lines ended by CRLF, a lone LF accepted; the
 * session part up to the first m= line, each media description from its m= line to the next.
 */
class SdpLinesTest {
    private static final String CRLF_SDP = "v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n"
            + "m=audio 5000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\nm=video 0 RTP/AVP 96\r\na=mid:1\r\n";

    @Test
    void linesAreCutAtCrlfAndAtALoneLf() {
        assertEquals(List.of("v=0", "s=-", "m=audio 5000 RTP/AVP 0"), SdpLines.of("v=0\r\ns=-\nm=audio 5000 RTP/AVP 0\r\n"),
                "CRLF and a lone LF both end a line (RFC 8866 §5), and no empty line follows the last break");
        assertEquals(List.of("v=0", "", "s=- "), SdpLines.of("v=0\r\n\r\ns=- \r\n"),
                "of() keeps the lines as written: an empty line inside and trailing blanks stay");
        assertEquals(List.of(), SdpLines.of(null), "a null SDP has no lines");
    }

    @Test
    void strippedLinesLoseBlanksAndEmptyLines() {
        assertEquals(List.of("v=0", "s=-"), SdpLines.stripped(" v=0 \r\n\r\ns=-\t\n"),
                "stripped() takes the white space off each line and leaves empty lines out");
        assertEquals(List.of(), SdpLines.stripped(null), "a null SDP has no lines");
    }

    @Test
    void sectionsRunFromOneMLineToTheNext() {
        SdpLines.Sections s = SdpLines.sections(SdpLines.of(CRLF_SDP));
        assertEquals(List.of("v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0"), s.session(),
                "the session part is every line before the first m= line");
        assertEquals(List.of(List.of("m=audio 5000 RTP/AVP 0", "a=rtpmap:0 PCMU/8000"), List.of("m=video 0 RTP/AVP 96", "a=mid:1")),
                s.media(), "each media description starts at its m= line and ends before the next");
        SdpLines.Sections none = SdpLines.sections(SdpLines.of("v=0\r\ns=-\r\n"));
        assertEquals(List.of("v=0", "s=-"), none.session(), "an SDP without m= lines is all session part");
        assertTrue(none.media().isEmpty(), "an SDP without m= lines has no media description, got " + none.media());
    }

    @Test
    void joiningKeepsTheLineBreakOfTheSdpRead() {
        assertEquals("\r\n", SdpLines.eol(CRLF_SDP), "an SDP with CRLF is written back with CRLF");
        assertEquals("\n", SdpLines.eol("v=0\ns=-\n"), "an SDP with LF alone is written back with LF");
        assertEquals(CRLF_SDP, SdpLines.join(SdpLines.of(CRLF_SDP), SdpLines.eol(CRLF_SDP)),
                "splitting an SDP and joining its lines again gives the same text");
        assertEquals("v=0\r\ns=-\r\n", SdpLines.join(List.of("v=0", "s=-")), "join() ends every line with CRLF by default");
        assertEquals("", SdpLines.join(List.of()), "no lines join to no text (not a lone line break)");
    }
}
