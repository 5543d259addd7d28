package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;

import javax.sip.message.Request;

import static org.junit.jupiter.api.Assertions.*;

/** Option tags in Supported/Require (one header each or comma lists, any case) and SDP bodies. */
class SipHeadersTest {
    @Test
    void optionTagsAreFoundInSeparateAndCombinedHeaders() throws Exception {
        Request r = SipFixtures.request(Request.INVITE, "alice", "c1", "ft", null, 1, null);
        assertFalse(SipHeaders.supportsOrRequires(r, "100rel"));
        r.addHeader(SipFixtures.HEADERS.createSupportedHeader("timer, 100REL"));
        r.addHeader(SipFixtures.HEADERS.createRequireHeader("precondition"));
        assertTrue(SipHeaders.supportsOrRequires(r, "100rel"));
        assertTrue(SipHeaders.supportsOrRequires(r, "precondition"));
        assertTrue(SipHeaders.requires(r, "precondition"));
        assertFalse(SipHeaders.requires(r, "100rel"), "only Supported, not Require");
        assertFalse(SipHeaders.supportsOrRequires(r, "rel"), "whole tags only");
    }

    @Test
    void sdpIsTheBodyOrNull() throws Exception {
        assertNull(SipHeaders.sdp(SipFixtures.request(Request.BYE, "alice", "c1", "ft", "tt", 2, null)));
        String sdp = "v=0\r\ns=é\r\n";
        assertEquals(sdp, SipHeaders.sdp(SipFixtures.request(Request.INVITE, "alice", "c1", "ft", null, 1, sdp)));
    }

    private static Request parse(String extra) throws Exception {
        String text = ("INVITE sip:alice@127.0.0.1:5070 SIP/2.0\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK1\n"
                + "Max-Forwards: 70\nFrom: <sip:dave@ims.lab>;tag=f1\nTo: <sip:alice@ims.lab>\nCall-ID: c1\n"
                + "CSeq: 1 INVITE\nContact: <sip:dave@127.0.0.1:5999>\n" + extra + "\n").replace("\n", "\r\n");
        return (Request) new StrictMessageParserFactory().createMessageParser(null).parseSIPMessage(
                text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1), true, false,
                (e, msg, headerClass, header, message) -> msg.addUnparsed(header));
    }

    @Test
    void aDatagramWithoutContentLengthHasItsBodyAndOneWithItKeepsItsLength() throws Exception {
        String sdp = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 4000 RTP/AVP 0\r\n";
        String lf = sdp.replace("\r\n", "\n");
        Request noLength = parse("Content-Type: application/sdp\n\n" + lf.substring(0, lf.length() - 1)); // parse() ends it
        assertEquals(sdp, SipHeaders.sdp(noLength), "RFC 3261 §18.3: over UDP the body runs to the datagram's end");
        Request zero = parse("Content-Type: application/sdp\nContent-Length: 0\n\n" + lf);
        assertNull(SipHeaders.sdp(zero), "an explicit Content-Length: 0 stays empty");
        Request none = parse("\n");
        assertNull(SipHeaders.sdp(none), "no body, no Content-Length, a trailing CRLF: none");
    }

    @Test
    void headerShapesRealPhonesSendAreReadWithoutFailing() throws Exception {
        // RFC 3261 §25: Supported, Require, Allow … may be empty; phones send them empty, repeated, compact
        Request empty = parse("Supported:\nRequire:\nAllow:\nAllow-Events:\nUnsupported:\nSession-Expires:\n");
        assertFalse(SipHeaders.supportsOrRequires(empty, "100rel"), "an empty Supported/Require has no tag");
        assertFalse(SipHeaders.requires(empty, "timer"));
        assertEquals(java.util.List.of(), SipHeaders.tokens(empty, "Allow"), "an empty Allow has no method");
        assertEquals(java.util.List.of(), SipHeaders.tokens(empty, "Allow-Events"));
        assertNull(RequestCheck.check(empty), "an INVITE with empty option headers is acceptable");

        Request many = parse("Supported: replaces\nk: 100rel, timer\nSupported: path,gruu\n"
                + "Allow: INVITE, ACK\nAllow: BYE,UPDATE\nu: presence, dialog\nRequire:\n");
        assertTrue(SipHeaders.supportsOrRequires(many, "timer"), "a compact k: header is read as Supported");
        assertTrue(SipHeaders.supportsOrRequires(many, "GRUU"), "a second Supported header is read too");
        assertEquals(java.util.List.of("INVITE", "ACK", "BYE", "UPDATE"), SipHeaders.tokens(many, "Allow"));
        assertEquals(java.util.List.of("presence", "dialog"), SipHeaders.tokens(many, "Allow-Events"),
                "the compact u: header is Allow-Events");
        assertNull(RequestCheck.check(many));

        assertEquals(java.util.List.of(), SipHeaders.tokens(null, "Supported"));
        assertEquals(java.util.List.of(), SipHeaders.tokens(many, "No-Such-Header"));
    }
}
