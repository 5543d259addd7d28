package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;

import javax.sip.message.Request;
import javax.sip.message.Response;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Reading the registrar's 200 (REGISTER) on real JAIN-SIP messages: our contact's expiry, Service-Route, identities. */
class RegisterOkTest {
    static final String OURS = "127.0.0.1:5070";

    static Response ok(String... headers) throws Exception {
        Request reg = SipFixtures.request(Request.REGISTER, "alice", "reg-1", "t1", null, 1, null);
        Response r = SipFixtures.MESSAGES.createResponse(200, reg);
        for (String h : headers) {
            int colon = h.indexOf(':');
            r.addHeader(SipFixtures.HEADERS.createHeader(h.substring(0, colon).strip(), h.substring(colon + 1).strip()));
        }
        return r;
    }

    @Test
    void theExpiryIsOurContactsAmongAllTheUsersContacts() throws Exception {
        Response r = ok("Contact: <sip:wother@127.0.0.1:5070>;expires=100", "Contact: <sip:wours@10.0.0.1:5070>;expires=200",
                "Contact: <sip:wours@127.0.0.1:5070;transport=udp>;expires=300", "Expires: 400");
        assertEquals(300, RegisterOk.grantedExpires(r, "wours", OURS, 600), "our user part at our host:port");
        assertEquals(400, RegisterOk.grantedExpires(r, "wgone", OURS, 600), "no contact of ours listed: the Expires header");
        assertEquals(600, RegisterOk.grantedExpires(ok(), "wours", OURS, 600), "neither: what was asked for");
    }

    @Test
    void theServiceRouteIsKeptInOrderAndTheIdentitiesFromPAssociatedUri() throws Exception {
        Response r = ok("Service-Route: <sip:orig@scscf.ims.lab:6060;lr>", "Service-Route: <sip:second@ims.lab;lr>",
                "P-Associated-URI: <sip:alice@ims.lab>", "P-Associated-URI: <tel:+15550001>");
        RegisterOk ok = RegisterOk.of(r, "alice", "wours", OURS, 600, List.of("sip:alice@ims.lab"), null, SipFixtures.ADDRESSES);
        assertEquals(List.of("sip:orig@scscf.ims.lab:6060;lr", "sip:second@ims.lab;lr"),
                ok.serviceRoute().stream().map(a -> a.getURI().toString()).toList());
        assertEquals(List.of("sip:alice@ims.lab", "tel:+15550001"), ok.identities().all());
        assertTrue(ok.identities().fromCore());

        RegisterOk plain = RegisterOk.of(ok(), "bob", "wours", OURS, 600, List.of("sip:bob@ims.lab"), ok.identities(), SipFixtures.ADDRESSES);
        assertEquals(List.of(), plain.serviceRoute(), "no Service-Route: none");
        assertEquals(List.of("sip:bob@ims.lab"), plain.identities().all(), "no P-Associated-URI: what the gateway registered");
        assertFalse(plain.identities().fromCore());
    }
}
