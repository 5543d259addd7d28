package org.webrtcims.gw.sip;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.stack.TCPMessageChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.*;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/** The pre-parse of RFC 4475's malformed shapes (MalformedRequest) and the parser factory's stand-in, on hand-made requests. */
class MalformedRequestTest {
    private static final String BASE = """
            INVITE sip:bob@example.com SIP/2.0
            Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK77
            Max-Forwards: 70
            From: <sip:alice@example.net>;tag=a1
            To: <sip:bob@example.com>
            Call-ID: m1@example.net
            CSeq: 5 INVITE
            Contact: <sip:alice@192.0.2.1>
            Content-Length: 0

            """;

    private static byte[] bytes(String text) {
        return text.replace("\n", "\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String why(String text) {
        return MalformedRequest.diagnose(bytes(text), true);
    }

    /** As JAIN-SIP's channels: a mandatory header that does not parse fails the message. */
    private static final ParseExceptionListener CHANNEL = (e, msg, headerClass, header, message) -> { throw e; };

    private static SIPMessage parse(String text, ParseExceptionListener listener) throws Exception {
        return new StrictMessageParserFactory().createMessageParser(null).parseSIPMessage(bytes(text), true, false, listener);
    }

    @Test
    void wellFormedButUnusualRequestsPass() {
        assertNull(why(BASE));
        assertNull(why(BASE.replace("To: <sip:bob@example.com>", "tO   :\n    sip:bob@example.com    ;  x-mark =  1")), "folding, LWS, addr-spec");
        assertNull(why(BASE.replace("From: <sip:alice@example.net>", "From: \"Ann \\\\ \\\"A\\\"\"   <sip:alice@example.net>")), "escaped quotes");
        assertNull(why(BASE.replace("From: <sip:alice@example.net>", "From: lab~` tester'+_ *%!.- <sip:alice@example.net>")), "token display name");
        assertNull(why(BASE.replace("From: <sip:alice@example.net>", "From: caller<sip:alice@example.net>")), "no LWS before <");
        assertNull(why(BASE.replace("INVITE sip:bob@", "INVITE sip:b?b;x=1@")), "? in the user part");
        assertNull(why(BASE.replace("Contact: <sip:alice@192.0.2.1>", "Contact: sip:alice@192.0.2.1;unknownparam")), "contact-param");
        assertNull(why(BASE.replace("Contact: <sip:alice@192.0.2.1>", "Contact: <sip:a@h1>, \"x, y\" <sip:b@h2>")), "a Contact list");
        assertNull(why(BASE.replace("INVITE sip:bob@example.com", "INVITE labwidget:opaque-4475")), "unknown scheme: 416 later");
    }

    @Test
    void eachMalformedShapeIsNamed() {
        assertEquals("space after the SIP version in the Request-Line", why(BASE.replace("SIP/2.0\nVia", "SIP/2.0  \nVia")));
        assertEquals("more than one space between the parts of the Request-Line", why(BASE.replace("INVITE sip", "INVITE  sip")));
        assertEquals("whitespace inside the Request-URI", why(BASE.replace("example.com SIP/2.0", "example.com; maddr=192.0.2.9 SIP/2.0")));
        assertEquals("Request-URI enclosed in <>", why(BASE.replace("INVITE sip:bob@example.com", "INVITE <sip:bob@example.com>")));
        assertEquals("headers in the Request-URI", why(BASE.replace("bob@example.com SIP", "bob@example.com?Subject=lab%20call SIP")));
        assertEquals("CSeq number above 2**32-1", why(BASE.replace("CSeq: 5 INVITE", "CSeq: 4294967296 INVITE")));
        assertEquals("Content-Length is not a number of octets", why(BASE.replace("Content-Length: 0", "Content-Length: -9")));
        assertEquals("more than one Content-Length", why(BASE.replace("Content-Length: 0", "Content-Length: 0\nl: 0")));
        assertEquals("Content-Length 40 larger than the body (0 octets)", why(BASE.replace("Content-Length: 0", "Content-Length: 40")));
        assertNull(MalformedRequest.diagnose(bytes(BASE.replace("Content-Length: 0", "Content-Length: 40")), false), "on a stream the rest may follow");
        assertEquals("unterminated quoted string in To", why(BASE.replace("To: <sip:bob@example.com>", "To: \"Mr B <sip:bob@example.com>")));
        assertEquals("whitespace inside <> in To", why(BASE.replace("To: <sip:bob@example.com>", "To: \"B\" < sip:bob@example.com >")));
        assertEquals("an unquoted display name with ',' in From", why(BASE.replace("From: <sip", "From: Tester, Lab <sip")));
        assertEquals("a URI with headers not enclosed in <> in Contact",
                why(BASE.replace("Contact: <sip:alice@192.0.2.1>", "Contact: sip:alice@192.0.2.1?Subject=lab%20check&Priority=urgent")));
    }

    @Test
    void aRequestTheParserRejectsIsAnsweredOnAStandInWithItsOwnTransactionHeaders() throws Exception {
        SIPMessage m = parse(BASE.replace("To: <sip:bob@example.com>", "To: \"Mr B <sip:bob@example.com>"), CHANNEL);
        assertNotNull(m, "a stand-in, so that the stack makes a transaction");
        assertEquals("m1@example.net", m.getCallId().getCallId());
        assertEquals("z9hG4bK77", m.getTopmostVia().getBranch(), "the sender's Via: the 400 reaches it");
        RequestCheck.Refusal r = RequestCheck.check((SIPRequest) m);
        assertEquals(400, r.status());
        assertEquals("unterminated quoted string in To", r.reason());

        SIPMessage badVia = parse(BASE.replace("Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK77", "Via: SIP/2.0/UDP 192.0.2.1;,,;;,"), CHANNEL);
        assertEquals("unparseable via header", RequestCheck.check((SIPRequest) badVia).reason());
        assertEquals("192.0.2.1", badVia.getTopmostVia().getHost(), "the Via's sent-by salvaged");

        assertNull(parse(BASE.replace("INVITE sip:bob@example.com", "INVITE <sip:bob@example.com>")
                .replace("Via: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK77\n", ""), CHANNEL), "no Via: nowhere to answer");
        assertThrows(java.text.ParseException.class, () -> parse("SIP/2.0 200 OK\nVia: x;;,,\nCSeq: 1 INVITE\n\n", CHANNEL),
                "responses are not stood in for");
    }

    @Test
    void overAConnectionTheTopViaGetsTheConnectionsTransport() throws Exception {
        TCPMessageChannel tcp = mock(TCPMessageChannel.class);
        when(tcp.getTransport()).thenReturn("TCP");
        SIPMessage m = parse(BASE, CHANNEL);
        StrictMessageParserFactory.sameTransport((SIPRequest) m, tcp);
        assertEquals("TCP", m.getTopmostVia().getTransport(), "the response goes back on the connection (RFC 3261 §18.2.2)");
        assertEquals("z9hG4bK77", m.getTopmostVia().getBranch());
    }

    @Test
    void methodsTheGatewayDoesNotServeGet405AndAnInviteThatRefusesSdpGets406() throws Exception {
        String register = BASE.replace("INVITE sip:", "REGISTER sip:").replace("CSeq: 5 INVITE", "CSeq: 5 REGISTER");
        assertEquals(405, RequestCheck.check((SIPRequest) parse(register, CHANNEL)).status());
        assertEquals(406, RequestCheck.check((SIPRequest) parse(BASE.replace("Max-Forwards: 70", "Max-Forwards: 70\nAccept: text/x-nobody"), CHANNEL)).status());
        assertNull(RequestCheck.check((SIPRequest) parse(BASE.replace("Max-Forwards: 70", "Max-Forwards: 70\nAccept: application/sdp, text/x"), CHANNEL)));
    }
}
