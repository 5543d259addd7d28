package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;
import org.webrtcims.gw.config.GatewayProperties;
import org.webrtcims.gw.metrics.GatewayMetrics;

import javax.sip.header.ContactHeader;
import javax.sip.message.Request;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A gateway failover's registration handover in the REGISTER (docs/scale-out.md): a login's first REGISTER removes
 * the contacts a dead gateway registered for the user (Contact ;expires=0 beside the gateway's own), and the
 * handover learns what was registered and de-registered. Refreshes carry nothing extra.
 */
class ContactHandoverRegisterTest {
    static final class Recorded implements ContactHandover {
        final List<String> events = new ArrayList<>();
        @Override public List<String> staleContacts(String user) {
            events.add("stale? " + user);
            return List.of("sip:old1@198.18.16.101:5070;transport=udp;rinstance=old1");
        }
        @Override public void registered(String user, String contact, List<String> removed) { events.add("registered " + user + " " + contact + " removed " + removed); }
        @Override public void unregistered(String user) { events.add("unregistered " + user); }
    }

    private static List<String> contacts(Request r) {
        List<String> out = new ArrayList<>();
        for (Iterator<?> it = r.getHeaders(ContactHeader.NAME); it.hasNext(); ) {
            ContactHeader c = (ContactHeader) it.next();
            out.add(c.getAddress().getURI() + (c.getExpires() >= 0 ? " expires=" + c.getExpires() : ""));
        }
        return out;
    }

    @Test
    void theFirstRegisterRemovesTheDeadGatewaysContactAndTheHandoverLearnsTheNewOne() throws Exception {
        PlayedRegistrar registrar = new PlayedRegistrar("ho-");
        RegisterAuthTest.digestHelper(registrar.ua, new AtomicReference<>());
        GatewayProperties props = new GatewayProperties();
        SipRequests requests = new SipRequests(registrar.ua, props);
        Recorded handover = new Recorded();
        requests.setContactHandover(handover);
        Registration reg = new Registration("erin", new DigestAuth("erin", "pw", null, registrar.ua), "ho-1", "newc");
        var done = new RegisterTransaction(registrar.ua, requests, GatewayMetrics.none(), reg, 600,
                r -> new RegisterOk(300, List.of(), RegisteredIdentities.registered(List.of("sip:erin@ims.lab")))).start();
        Request first = registrar.sent.get(0);
        List<String> cs = contacts(first);
        assertEquals(2, cs.size(), "the gateway's own Contact and the dead gateway's: " + cs);
        assertEquals("sip:old1@198.18.16.101:5070;transport=udp;rinstance=old1 expires=0", cs.get(1),
                "the dead gateway's contact goes with ;expires=0 (RFC 3261 §10.2.2): " + first);
        registrar.answer(0, 200, null);
        done.get();
        String own = requests.contact("newc").getAddress().getURI().toString();
        assertEquals(List.of("stale? erin", "registered erin " + own + " removed [sip:old1@198.18.16.101:5070;transport=udp;rinstance=old1]"),
                handover.events, "asked once, then told the new contact and what went");

        handover.events.clear();
        var refresh = new RegisterTransaction(registrar.ua, requests, GatewayMetrics.none(), reg, 600,
                r -> new RegisterOk(300, List.of(), RegisteredIdentities.registered(List.of("sip:erin@ims.lab")))).start();
        assertEquals(1, contacts(registrar.sent.get(1)).size(), "a refresh carries only the gateway's own Contact: " + registrar.sent.get(1));
        registrar.answer(1, 200, null);
        refresh.get();
        var dereg = new RegisterTransaction(registrar.ua, requests, GatewayMetrics.none(), reg, 0, r -> null).start();
        assertEquals(1, contacts(registrar.sent.get(2)).size(), "a de-REGISTER carries only the gateway's own Contact");
        registrar.answer(2, 200, null);
        dereg.get();
        assertEquals(List.of("registered erin " + own + " removed []", "unregistered erin"), handover.events,
                "no stale lookup for a refresh or de-REGISTER; the de-REGISTER is told");
    }
}
