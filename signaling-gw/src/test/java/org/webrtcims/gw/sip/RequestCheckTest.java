package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;

import javax.sip.message.Request;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** RFC 3261 §8.2 / RFC 4475 checks on parsed requests, with JAIN-SIP's own parser plus the strict marks. */
class RequestCheckTest {
    private static final String BASE = """
            OPTIONS sip:gw@127.0.0.1:5070 SIP/2.0
            Via: SIP/2.0/UDP 127.0.0.1:5999;branch=z9hG4bK1;rport
            Max-Forwards: 70
            From: <sip:p@ims.lab>;tag=f1
            To: <sip:gw@ims.lab>
            Call-ID: c1
            CSeq: 1 OPTIONS
            Content-Length: 0

            """;

    private static Request parse(String text) throws Exception {
        byte[] bytes = text.replace("\n", "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        return (Request) new StrictMessageParserFactory().createMessageParser(null).parseSIPMessage(bytes, true, false,
                (e, msg, headerClass, header, message) -> msg.addUnparsed(header)); // as the stack's channels do
    }

    private static Integer status(String text) throws Exception {
        RequestCheck.Refusal r = RequestCheck.check(parse(text));
        return r == null ? null : r.status();
    }

    private static String invite(String extra) {
        return BASE.replace("OPTIONS sip:", "INVITE sip:").replace("CSeq: 1 OPTIONS", "CSeq: 1 INVITE")
                .replace("Max-Forwards: 70\n", "Max-Forwards: 70\nContact: <sip:p@127.0.0.1:5999>\n" + extra);
    }

    @Test
    void aPlainRequestPasses() throws Exception {
        assertNull(status(BASE));
        assertNull(status(invite("")));
        assertNull(status(BASE.replace("Max-Forwards: 70\n", "")), "RFC 2543: no Max-Forwards is fine");
        assertNull(status(BASE.replace("Max-Forwards: 70\n", "Require: 100rel, precondition\n")));
    }

    @Test
    void eachViolationGetsItsStatus() throws Exception {
        assertEquals(505, status(BASE.replace("SIP/2.0\nVia", "SIP/7.0\nVia")));
        assertEquals(416, status(BASE.replace("OPTIONS sip:gw@127.0.0.1:5070", "OPTIONS foo:bar@127.0.0.1")));
        assertEquals(400, status(BASE.replace("CSeq: 1 OPTIONS\n", "CSeq: 1 OPTIONS\nCSeq: 2 OPTIONS\n")));
        assertEquals(400, status(BASE.replace("Call-ID: c1\n", "Call-ID: c1\ni: c2\n")));
        assertEquals(400, status(BASE.replace("Max-Forwards: 70\n", "Max-Forwards: 70\nThis is not a header\n")));
        assertEquals(400, status(BASE.replace("CSeq: 1 OPTIONS", "CSeq: 1 INVITE")));
        assertEquals(400, status(invite("").replace("Contact: <sip:p@127.0.0.1:5999>\n", "")), "INVITE without Contact");
        assertEquals(501, status(BASE.replace("OPTIONS sip:", "FOO sip:").replace("CSeq: 1 OPTIONS", "CSeq: 1 FOO")));
        assertEquals(415, status(invite("Content-Type: text/plain\n").replace("Content-Length: 0\n\n", "Content-Length: 5\n\nhello")));
        String notify = BASE.replace("OPTIONS sip:", "NOTIFY sip:").replace("CSeq: 1 OPTIONS", "CSeq: 1 NOTIFY");
        assertNull(status(notify.replace("Max-Forwards: 70\n", "Max-Forwards: 70\nContent-Type: application/reginfo+xml\n")
                .replace("Content-Length: 0\n\n", "Content-Length: 9\n\n<reginfo>")), "RFC 3680: a NOTIFY carries reginfo");
        assertEquals(415, status(notify.replace("Max-Forwards: 70\n", "Max-Forwards: 70\nContent-Type: application/sdp\n")
                .replace("Content-Length: 0\n\n", "Content-Length: 4\n\nv=0\n")), "a NOTIFY body other than reginfo");
    }

    @Test
    void anUnknownRequireGets420ListingTheUnsupportedOptions() throws Exception {
        RequestCheck.Refusal r = RequestCheck.check(parse(BASE.replace("Max-Forwards: 70\n",
                "Max-Forwards: 70\nRequire: nothing-known, 100rel\nRequire: Other\n")));
        assertEquals(420, r.status());
        assertEquals(List.of("nothing-known", "other"), r.unsupported());
    }

    @Test
    void anAckIsNeverRefusedAndResponsesAreNotMarked() throws Exception {
        assertNull(RequestCheck.check(parse(BASE.replace("OPTIONS sip:", "ACK sip:").replace("CSeq: 1 OPTIONS", "CSeq: 1 ACK")
                .replace("SIP/2.0\nVia", "SIP/7.0\nVia"))));
        assertNull(StrictMessageParserFactory.violation("SIP/2.0 200 OK\r\nCSeq: 1 A\r\nCSeq: 2 A\r\n\r\n".getBytes()));
        assertEquals("505 SIP version SIP/7.0", StrictMessageParserFactory.violation("\r\nINVITE sip:a@b SIP/7.0\r\n\r\n".getBytes()));
    }

    @Test
    void aRequestWithoutCallIdOrCseqButWithAViaGetsPlaceholdersAnd400() throws Exception {
        Request r = parse(BASE.replace("Call-ID: c1\n", "").replace("CSeq: 1 OPTIONS\n", ""));
        assertNotNull(r.getHeader("Call-ID"), "a placeholder, so that the stack makes a transaction");
        RequestCheck.Refusal refusal = RequestCheck.check(r);
        assertEquals(400, refusal.status());
        assertEquals("missing Call-ID, CSeq", refusal.reason());
        assertNull(StrictMessageParserFactory.fillMissing("OPTIONS sip:a@b SIP/2.0\r\nTo: <sip:a@b>\r\n\r\n".getBytes()), "no Via: nowhere to answer");
        assertNull(StrictMessageParserFactory.fillMissing(BASE.replace("\n", "\r\n").getBytes()), "nothing missing");
    }
}
