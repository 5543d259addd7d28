package org.webrtcims.gw.sip;

import gov.nist.javax.sip.message.SIPMessage;
import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.net.LocalSockets;

import javax.sip.header.AllowHeader;
import javax.sip.header.ContactHeader;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.UnsupportedHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** The front door for SIP requests: parser faults first, then the trusted source, then RFC 3261 §8.2, with real parsed requests. */
class RequestScreenTest {
    private static final String OPTIONS = """
            OPTIONS sip:gw@127.0.0.1:5070 SIP/2.0
            Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK1
            From: <sip:p@ims.lab>;tag=f1
            To: <sip:gw@ims.lab>
            Call-ID: c1
            CSeq: 1 OPTIONS
            Content-Length: 0

            """;

    private final RequestScreen screen;

    RequestScreenTest() {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setProxy("127.0.0.1:5060");
        screen = new RequestScreen(new SipSources(props, new LocalSockets()), new Pcscf(props),
                SipFixtures.ADDRESSES, SipFixtures.HEADERS, SipFixtures.MESSAGES);
    }

    /** A request parsed as the stack does, arrived from address:port. */
    private static Request from(String text, String address, int port) throws Exception {
        SIPMessage m = (SIPMessage) SipFixtures.parse(text);
        m.setPeerPacketSourceAddress(InetAddress.getByName(address));
        m.setPeerPacketSourcePort(port);
        return (Request) m;
    }

    private static String invite(String fromTag) {
        return OPTIONS.replace("OPTIONS sip:", "INVITE sip:").replace("CSeq: 1 OPTIONS", "CSeq: 1 INVITE")
                .replace("<sip:p@ims.lab>;tag=f1", "<sip:p@ims.lab>" + fromTag);
    }

    @Test
    void aRequestFromTheProxyPassesAndGetsMaxForwardsWhenItHadNone() throws Exception {
        Request r = from(OPTIONS, "127.0.0.1", 5060);
        assertNull(screen.screen(r, "udp"), "an OPTIONS from the P-CSCF's address and port is let through");
        MaxForwardsHeader mf = (MaxForwardsHeader) r.getHeader(MaxForwardsHeader.NAME);
        assertNotNull(mf, "an RFC 2543 request without Max-Forwards is given one (JAIN-SIP makes no transaction without)");
        assertEquals(70, mf.getMaxForwards(), "the RFC 3261 §8.1.1.6 default");
    }

    @Test
    void anUntrustedSourceGets403AndAnUntrustedAckNothing() throws Exception {
        RequestScreen.Refused refused = screen.screen(from(OPTIONS, "127.0.0.1", 40123), "udp");
        assertNotNull(refused, "the P-CSCF's address from another port is refused");
        assertEquals(Response.FORBIDDEN, refused.response().getStatusCode(), "refused with 403");
        String ack = OPTIONS.replace("OPTIONS sip:", "ACK sip:").replace("CSeq: 1 OPTIONS", "CSeq: 1 ACK");
        RequestScreen.Refused ackRefused = screen.screen(from(ack, "127.0.0.2", 5060), "udp");
        assertNotNull(ackRefused, "an ACK from another address is refused too");
        assertNull(ackRefused.response(), "but gets no response (an ACK is never answered)");
    }

    @Test
    void whatTheParserFoundWrongIsAnsweredFirstWhoeverSentIt() throws Exception {
        String bad = OPTIONS.replace("Call-ID: c1\n", "Call-ID: c1\nThis is not a header\n");
        RequestScreen.Refused refused = screen.screen(from(bad, "127.0.0.2", 5999), "udp");
        assertNotNull(refused, "an unparseable line is refused");
        Response r = refused.response();
        assertEquals(Response.BAD_REQUEST, r.getStatusCode(), "400 before the source check (RFC 4475), not 403: " + r.getReasonPhrase());
        assertTrue(r.getReasonPhrase().startsWith("Bad Request (unparseable header line"), "the reason says why: " + r.getReasonPhrase());
    }

    @Test
    void anRfc2543InviteWithoutContactGetsItsFromAsContactAnRfc3261OneIs400() throws Exception {
        Request old = from(invite(""), "127.0.0.1", 5060);
        assertNull(screen.screen(old, "udp"), "an RFC 2543 INVITE (no From tag) without Contact is taken");
        ContactHeader contact = (ContactHeader) old.getHeader(ContactHeader.NAME);
        assertNotNull(contact, "it is given a Contact");
        assertEquals("sip:p@ims.lab", contact.getAddress().getURI().toString(), "the From URI is the Contact");

        RequestScreen.Refused refused = screen.screen(from(invite(";tag=f1"), "127.0.0.1", 5060), "udp");
        assertNotNull(refused, "an RFC 3261 INVITE (From tag) without Contact is refused");
        assertEquals(Response.BAD_REQUEST, refused.response().getStatusCode(), "with 400: " + refused.response().getReasonPhrase());
    }

    @Test
    void eachRefusalCarriesTheHeadersThatSayWhy() throws Exception {
        Request r = from(OPTIONS, "127.0.0.1", 5060);
        Response r420 = screen.refusalResponse(r, new RequestCheck.Refusal(420, "unsupported", List.of("foo", "bar")));
        assertEquals("foo, bar", ((UnsupportedHeader) r420.getHeader(UnsupportedHeader.NAME)).getOptionTag(),
                "a 420 lists what is not supported: " + r420);
        Response r415 = screen.refusalResponse(r, new RequestCheck.Refusal(415, "body", List.of()));
        assertNotNull(r415.getHeader("Accept"), "a 415 says what is accepted: " + r415);
        Response r405 = screen.refusalResponse(r, new RequestCheck.Refusal(405, "method", List.of()));
        List<String> allowed = new ArrayList<>();
        r405.getHeaders(AllowHeader.NAME).forEachRemaining(h -> allowed.add(((AllowHeader) h).getMethod()));
        assertEquals(new java.util.TreeSet<>(RequestCheck.METHODS).stream().toList(), allowed, "a 405 lists the methods, sorted");
        Response r400 = screen.refusalResponse(r, new RequestCheck.Refusal(400, "é".repeat(200), List.of()));
        assertEquals("Bad Request (" + "?".repeat(117) + "...)", r400.getReasonPhrase(),
                "a 400's reason in plain printable words, cut at 120 characters");
        Response r505 = screen.refusalResponse(r, new RequestCheck.Refusal(505, "SIP version SIP/7.0", List.of()));
        assertEquals("Version Not Supported (SIP version SIP/7.0)", r505.getReasonPhrase(), "a 505 says which version");
    }

    @Test
    void aNamedTrustedSourceListReplacesTheProxyDefault() {
        GatewayProperties props = new GatewayProperties();
        props.getIms().setProxy("127.0.0.1:5060");
        props.getSip().setTrustedSources(List.of("127.0.0.9:5099"));
        RequestScreen configured = new RequestScreen(new SipSources(props, new LocalSockets()), new Pcscf(props),
                SipFixtures.ADDRESSES, SipFixtures.HEADERS, SipFixtures.MESSAGES);
        assertTrue(configured.trustedSource("udp", "127.0.0.9", 5099), "a configured source is accepted");
        assertFalse(configured.trustedSource("udp", "127.0.0.1", 5060), "the P-CSCF is not added when sources are configured");
        assertTrue(screen.trustedSource("udp", "127.0.0.1", 5060), "by default the P-CSCF is");
    }
}
