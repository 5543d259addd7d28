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
    void aBareUserIsInTheImsDomainAUserAtHostAndASipUriStayAsTheyAre() throws Exception {
        SipRequests r = requests();
        assertEquals("sip:ue1@" + r.domain(), r.target("ue1").toString());
        assertEquals("sip:ue1@other.example", r.target(" ue1@other.example ").toString());
        assertEquals("sip:ue2@127.0.0.1:5070", r.target("sip:ue2@127.0.0.1:5070").toString());
    }

    @Test
    void badTargetsAreParseErrors() throws Exception {
        SipRequests r = requests();
        for (String bad : new String[] {"", "  ", "a b", "<sip:x@y>", "\"x\"", "sip:host.only"}) {
            assertThrows(ParseException.class, () -> r.target(bad), bad);
        }
    }

    @Test
    void anInviteCarriesALooseRouteToTheProxyAndOurContact() throws Exception {
        SipRequests r = requests();
        SipURI to = r.target("ue1");
        Request invite = r.create(Request.INVITE, to, r.aor("alice"), "ft", SipFixtures.ADDRESSES.createAddress(to), "cid", 1, "alice");
        SipURI route = (SipURI) ((RouteHeader) invite.getHeader(RouteHeader.NAME)).getAddress().getURI();
        assertTrue(route.hasLrParam(), "loose routing");
        assertEquals(props.getIms().getProxy(), route.getHost() + ":" + route.getPort());
        SipURI contact = (SipURI) ((ContactHeader) invite.getHeader(ContactHeader.NAME)).getAddress().getURI();
        assertEquals("alice", contact.getUser());
        assertEquals(SipRequests.USER_AGENT, invite.getHeader("User-Agent").toString().trim().substring("User-Agent: ".length()));
    }
}
