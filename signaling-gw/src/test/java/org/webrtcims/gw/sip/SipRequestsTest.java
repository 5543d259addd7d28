package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;

import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.RouteHeader;
import javax.sip.message.Request;
import java.text.ParseException;

import static org.junit.jupiter.api.Assertions.*;

/** Targets the browser may call, and the requests the gateway starts (pre-loaded Route to the P-CSCF, Contact). */
class SipRequestsTest {
    GatewayProperties props = new GatewayProperties();

    private SipRequests requests() throws Exception { return new SipRequests(SipTestUa.withFactories(), props); }

    @Test
    void aBareUserAndSipUrisOfTheImsDomainAndTelNumbersAreCallable() throws Exception {
        SipRequests r = requests();
        assertEquals("sip:ue1@" + r.domain(), r.targetUri("ue1").toString());
        assertEquals("sip:ue1@" + r.domain(), r.targetUri(" ue1@IMS.LAB ").toString().toLowerCase());
        assertEquals("sip:ue2@" + r.domain(), r.targetUri("sip:ue2@" + r.domain()).toString());
        assertEquals("sip:+4930123456@" + r.domain() + ";user=phone", r.targetUri("tel:+4930123456").toString(),
                "a tel: URI goes as a SIP URI with user=phone (RFC 3261 §19.1.6) into the IMS");
        assertEquals("sip:1234;phone-context=ims.lab@" + r.domain() + ";user=phone", r.targetUri("tel:1234;phone-context=ims.lab").toString());
    }

    @Test
    void rawHostsAndOtherDomainsAreRefusedUnlessAllowlisted() throws Exception {
        SipRequests r = requests();
        for (String raw : new String[] {"sip:ue1@127.0.0.1:5080", "ue1@127.0.0.1", "sip:ue1@127.0.0.2", "ue1@other.example",
                "sip:ue1@" + r.domain() + ":5080", "sips:ue1@[::1]:5061", "sip:ue1@localhost"}) {
            SipRequests.TargetRefused e = assertThrows(SipRequests.TargetRefused.class, () -> r.targetUri(raw),
                    raw + " bypasses the IMS's routing and must be refused");
            assertTrue(e.getMessage().contains("lab.ims.call-allowlist") && e.getMessage().contains(raw),
                    "the refusal names the target and the option: " + e.getMessage());
        }
        props.getIms().setCallAllowlist(java.util.List.of(" other.example ", "127.0.0.1:5080"));
        SipRequests allowing = requests();
        assertEquals("sip:ue1@other.example", allowing.targetUri("ue1@other.example").toString());
        assertEquals("sip:ue1@other.example:5062", allowing.targetUri("sip:ue1@other.example:5062").toString(), "a host entry: any port");
        assertEquals("sip:ue1@127.0.0.1:5080", allowing.targetUri("sip:ue1@127.0.0.1:5080").toString());
        assertThrows(SipRequests.TargetRefused.class, () -> allowing.targetUri("sip:ue1@127.0.0.1:5081"), "a host:port entry: that port only");
        assertThrows(SipRequests.TargetRefused.class, () -> allowing.targetUri("sip:ue1@127.0.0.1"));
    }

    @Test
    void badTargetsAreParseErrors() throws Exception {
        SipRequests r = requests();
        for (String bad : new String[] {"", "  ", "a b", "<sip:x@y>", "\"x\"", "sip:host.only", "tel:", "tel:+49 30", "tel:abc@x"}) {
            assertThrows(ParseException.class, () -> r.targetUri(bad), bad);
        }
    }

    @Test
    void anInviteCarriesALooseRouteToTheProxyAndOurContact() throws Exception {
        SipRequests r = requests();
        SipURI to = r.targetUri("ue1");
        Request invite = r.newRequest(Request.INVITE, to, r.aor("alice"), "ft", SipFixtures.ADDRESSES.createAddress(to), "cid", 1, "w0123abcd");
        SipURI route = (SipURI) ((RouteHeader) invite.getHeader(RouteHeader.NAME)).getAddress().getURI();
        assertTrue(route.hasLrParam(), "loose routing");
        assertEquals(props.getIms().getProxy(), route.getHost() + ":" + route.getPort());
        SipURI contact = (SipURI) ((ContactHeader) invite.getHeader(ContactHeader.NAME)).getAddress().getURI();
        assertEquals("w0123abcd", contact.getUser(), "the Contact's user part is the registration's (sip/ContactUsers)");
        assertEquals("w0123abcd", contact.getParameter("rinstance"),
                "rinstance tells the P-CSCF's registrations from one host:port apart (Kamailio ims_usrloc_pcscf)");
        assertEquals(SipRequests.USER_AGENT, invite.getHeader("User-Agent").toString().trim().substring("User-Agent: ".length()));
    }

    @Test
    void overIpv6ViaContactAndRouteCarryBracketedAddresses() throws Exception {
        props.getSip().setHost("fd00:1ab::2");
        props.getIms().setProxy("[fd00:1ab::1]:5060");
        SipRequests r = requests();
        SipURI to = r.targetUri("ue1");
        Request invite = r.newRequest(Request.INVITE, to, r.aor("alice"), "ft", SipFixtures.ADDRESSES.createAddress(to), "cid", 1, "w0123abcd");
        String wire = invite.toString();
        assertTrue(wire.contains("Via: SIP/2.0/UDP [fd00:1ab::2]:5070\r\n"), "Via sent-by is [addr]:port (RFC 3261 §25.1):\n" + wire);
        assertTrue(wire.contains("<sip:w0123abcd@[fd00:1ab::2]:5070;"), "Contact host in brackets:\n" + wire);
        assertTrue(wire.contains("Route: <sip:[fd00:1ab::1]:5060;lr"), "the pre-loaded Route to the IPv6 P-CSCF:\n" + wire);
        assertEquals(invite.toString(), SipFixtures.parse(wire).toString(), "the request parses back unchanged");
        props.getIms().setCallAllowlist(java.util.List.of("fd00:1ab::7"));
        assertEquals("sip:ue1@[fd00:1ab::7]:5080", requests().targetUri("sip:ue1@[fd00:1ab::7]:5080").toString(),
                "a bare IPv6 allowlist entry allows that host at any port");
    }

    @Test
    void withADataChannelEndpointTheContactCarriesTheDataChannelFeatureTag() throws Exception {
        SipRequests r = requests();
        assertNull(r.contact("u1").getParameter(DataChannelCapability.TAG), "no endpoint set: no feature tag");
        r.setDataChannelCapability(new DataChannelCapability(false));
        assertNull(r.contact("u1").getParameter(DataChannelCapability.TAG), "an endpoint that is off: no feature tag");
        r.setDataChannelCapability(new DataChannelCapability(true));
        ContactHeader c = r.contact("u1");
        assertTrue(c.toString().contains(";+sip.app-subtype=\"webrtc-datachannel\""),
                "TS 26.114 6.2.10.1 / TS 23.228 AC.4: the Contact must carry +sip.app-subtype=\"webrtc-datachannel\", got " + c);
        assertTrue(c.toString().contains("rinstance=u1"), "the Contact URI is unchanged: " + c);
    }
}
