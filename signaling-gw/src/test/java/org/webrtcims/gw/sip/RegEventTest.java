package org.webrtcims.gw.sip;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.*;

/** Reading RFC 3680 reginfo: when did the network end the gateway's registration of an IMPU, and why. */
class RegEventTest {
    static final String OURS = "dave@127.0.0.1:5070";

    static byte[] reginfo(String regState, String contactState, String event, String uri) {
        return ("<?xml version=\"1.0\"?>\n<reginfo xmlns=\"urn:ietf:params:xml:ns:reginfo\" version=\"1\" state=\"full\">\n"
                + "<registration aor=\"sip:dave@ims.lab\" id=\"0x1\" state=\"" + regState + "\">\n"
                + "<contact id=\"0x2\" state=\"" + contactState + "\" event=\"" + event + "\" expires=\"0\">\n"
                + "<uri>" + uri + "</uri>\n</contact>\n</registration>\n</reginfo>").getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void anActiveRegistrationIsNotAnEnd() {
        assertNull(RegEvent.regTerminated(reginfo("active", "active", "registered", "sip:" + OURS + ";transport=udp"), "sip:dave@ims.lab", OURS));
        assertNull(RegEvent.regTerminated(null, "sip:dave@ims.lab", OURS));
        assertNull(RegEvent.regTerminated(new byte[0], "sip:dave@ims.lab", OURS));
    }

    @Test
    void ourContactOrTheWholeRegistrationTerminatedIsAnEndWithItsEvent() {
        assertEquals("deactivated", RegEvent.regTerminated(reginfo("terminated", "terminated", "deactivated", "sip:" + OURS), "sip:dave@ims.lab", OURS));
        assertEquals("rejected", RegEvent.regTerminated(reginfo("active", "terminated", "rejected", "sip:" + OURS), "sip:dave@ims.lab", OURS));
        assertEquals("terminated", RegEvent.regTerminated(reginfo("terminated", "terminated", "", "sip:other@10.0.0.1:5060"), "sip:dave@ims.lab", OURS));
    }

    @Test
    void anotherContactOrAnotherIdentityIsNotOurs() {
        assertNull(RegEvent.regTerminated(reginfo("active", "terminated", "expired", "sip:other@10.0.0.1:5060"), "sip:dave@ims.lab", OURS));
        assertNull(RegEvent.regTerminated(reginfo("terminated", "terminated", "deactivated", "sip:" + OURS), "sip:alice@ims.lab", OURS));
    }

    @Test
    void aBadOrHostileBodyIsIgnored() {
        assertNull(RegEvent.regTerminated("not xml".getBytes(StandardCharsets.UTF_8), "sip:dave@ims.lab", OURS));
        byte[] xxe = ("<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<reginfo><registration aor=\"sip:dave@ims.lab\" state=\"&x;\"/></reginfo>").getBytes(StandardCharsets.UTF_8);
        assertNull(RegEvent.regTerminated(xxe, "sip:dave@ims.lab", OURS), "DOCTYPE refused");
    }
}
